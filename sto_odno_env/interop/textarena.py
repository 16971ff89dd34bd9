"""101 as a TextArena env, for language-model agents (the ``text`` extra: ``textarena``).

    import textarena as ta
    import sto_odno_env.interop.textarena  # registers StoOdno-v0 and one id per preset

    env = ta.make("StoOdno-v0")             # classic; StoOdno-v0-yard, -nines, ...
    env.reset(num_players=3, seed=7)        # 2-6 players, as the rule set allows
    done = False
    while not done:
        player, observation = env.get_observation()
        done, info = env.step(action=agent(observation))   # e.g. "[play Q♠ hearts]"
    rewards, game_info = env.close()

Every seat's words come from the kit's text interface (:mod:`sto_odno_env.views.text`):
at its turn a seat is shown :func:`~sto_odno_env.views.text.seat_view` (its hand, the top
card, the ordered suit, what the decision asks, every seat's card count and total, what
happened since its last turn, the legal moves) and its answer is read by
:func:`~sto_odno_env.views.text.parse_move`, which takes the last ``[...]`` of an answer
(TextArena's convention) and any lenient form of a listed move. The match runs on the
kit's engine, one decision at a time; decisions with one legal action are taken for the
seat, as the engine does, and shown in the next view.

**Invalid moves**, as TextArena's card games handle them: an answer that is not a legal
move is refused through the state's ``set_invalid_move`` with the parser's message (which
names the legal moves), made a sentence to sit between TextArena's own, and the same seat
answers again; past ``error_allowance`` refusals in a row (1 by default, as TextArena's
states) the seat loses the match: it ends at once with −1 for that seat and +1 shared by
the others (zero-sum, as the kit's match reward).

**Rewards** at a match's end are the kit's match reward (docs/rules.md §8): +1 for the
winner to −1 for the last, linear in the place, ties sharing; a match stopped at the
rules' turn limit gives 0 to the seats still in. ``game_info[p]["reason"]`` tells why the
match ended.

Each id is registered as TextArena registers its own games: ``StoOdno-v0`` with the
default wrappers (the whole history as one string, actions put in brackets),
``StoOdno-v0-train`` with the current board and game messages, ``StoOdno-v0-raw`` with
none; the same for ``StoOdno-v0-<preset>``.
"""

from __future__ import annotations

import random
from typing import Any

import textarena as ta

from ..game.rules import PRESETS, Rules, load_rules
from ..records.stepping import SteppedMatch
from ..views.observation import observe_one
from ..views.text import (
    TextActionError,
    action_text,
    answer_format,
    opens_turn,
    parse_move,
    rules_brief,
    seat_view,
)

ENV_ID = "StoOdno-v0"
ENTRY_POINT = "sto_odno_env.interop.textarena:StoOdnoTextEnv"


def env_ids() -> dict[str, str]:
    """The TextArena ids registered here and the rule set each plays: ``StoOdno-v0``
    (classic) and ``StoOdno-v0-<preset>`` for every preset (without the wrapper suffixes
    ``-train`` and ``-raw``, registered beside each)."""
    return {ENV_ID: "classic", **{f"{ENV_ID}-{name}": name for name in PRESETS}}


class StoOdnoTextEnv(ta.Env):
    """101 for 2-6 text players (as the rule set allows), on the kit's engine.

    ``rules``: a preset name, a YAML rules file or a :class:`~sto_odno_env.game.rules.Rules`;
    ``error_allowance``: invalid answers a seat may give in a row before it loses.
    """

    def __init__(self, rules: str | Rules = "classic", error_allowance: int = 1):
        if isinstance(error_allowance, bool) or not isinstance(error_allowance, int):
            raise ValueError(f"error_allowance must be an integer >= 0, got {error_allowance!r}")
        if error_allowance < 0:
            raise ValueError(f"error_allowance must be an integer >= 0, got {error_allowance}")
        self.rules = load_rules(rules)
        self.error_allowance = error_allowance

    # --- TextArena's API ------------------------------------------------------------------

    def reset(self, num_players: int, seed: int | None = None) -> None:
        """A new match for ``num_players`` seats; ``seed`` (an integer >= 0) makes the deal
        and every later random event the kit's match ``seed`` (docs/rules.md §10)."""
        self.rules.check_players(num_players)  # RulesError (a ValueError) names the counts
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        elif isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be an integer >= 0 or None, got {seed!r}")
        state_class = ta.TwoPlayerState if num_players == 2 else ta.FFAMultiPlayerState
        self.state = state_class(
            num_players=num_players, seed=seed, error_allowance=self.error_allowance
        )
        self.match = SteppedMatch(self.rules, num_players, seed)
        self.names = [f"Player {p}" for p in range(num_players)]
        self.recent: dict[int, list[dict[str, Any]]] = {p: [] for p in range(num_players)}
        self.turns = dict.fromkeys(range(num_players), 0)
        self.last_actor: int | None = None
        self.state.reset(
            game_state={"rules": self.rules.name, "seed": seed},
            player_prompt_function=self._prompt,
            role_mapping=dict(enumerate(self.names)),
        )
        self._share(self.match.start())
        self._take_forced()
        if self.match.done:  # forced decisions alone can end a match of a small deck
            self._finish()
        else:
            self._next_turn()

    def step(self, action: str) -> tuple[bool, dict[str, Any]]:
        """Apply the answer of the player to act; returns ``(done, info)``."""
        player = self.state.current_player_id
        # The answer may hold a model's reasoning: only the seat that wrote it reads it back.
        self.state.add_observation(
            from_id=player,
            to_id=player,
            message=action,
            observation_type=ta.ObservationType.PLAYER_ACTION,
        )
        try:
            move = parse_move(str(action), self.match.state)
        except TextActionError as error:
            reason = as_sentence(str(error))
            lost = self.state.set_invalid_move(reason=reason)
            if lost and not self.state.done:  # FFAMultiPlayerState: out of allowance
                self._lose_by_invalid(player, reason)
            elif self.state.done:  # TwoPlayerState ended the match itself (-1 / +1)
                self._note_invalid_end(player, reason)
            return self.state.step(rotate_player=False)
        round_played = int(self.match.state.round[0])
        self._play(player, move.action)
        if move.then is not None and not self.match.done:
            state = self.match.state
            # The queen's own order: not a new round's (a queen that ends a round orders nothing).
            still = int(state.current_player[0]) == player and int(state.round[0]) == round_played
            if still and move.then in self.match.legal():  # the suit named with the queen
                self._play(player, move.then)
        self._take_forced()
        if self.match.done:
            self._finish()
        else:
            self._next_turn()
        return self.state.step(rotate_player=False)

    def get_board_str(self) -> str:
        """The view of the player to act (what its last observation showed)."""
        player = self.state.current_player_id
        return seat_view(self.match.state, player, names=self.names)

    # --- the match ------------------------------------------------------------------------

    def _prompt(self, player_id: int, game_state: dict[str, Any]) -> str:
        rules = self.rules
        lines = [
            f"You are Player {player_id} in a {self.state.num_players}-player game of 101 "
            f"(rules {rules.name}).",
            *rules_brief(rules),
            "At your turn you see the table and the legal moves. "
            + answer_format(self.match.state),
            f"An answer that is not a legal move is refused with the legal moves; after "
            f"{self.error_allowance + 1} in a row you lose the match.",
        ]
        return "\n".join(lines)

    def _share(self, events: list[dict[str, Any]]) -> None:
        """Every seat hears every event, as it may know it (:func:`event_text` hides the
        cards another seat drew); a new round starts the seats' turn counts again."""
        for seat_events in self.recent.values():
            seat_events.extend(events)
        if any(event["type"] == "round" for event in events):
            self.turns = dict.fromkeys(self.turns, 0)
            self.last_actor = None

    def _play(self, seat: int, action: int) -> None:
        if opens_turn(self.match.state, self.last_actor):
            self.turns[seat] += 1
        self.last_actor = seat
        self._share(self.match.step(action))

    def _take_forced(self) -> None:
        """Decisions with one legal action are taken at once (docs/rules.md §4)."""
        while not self.match.done and len(legal := self.match.legal()) == 1:
            self._play(int(self.match.state.current_player[0]), legal[0])

    def _next_turn(self) -> None:
        """Hand the turn to the engine's player to act and show it its view."""
        seat = int(self.match.state.current_player[0])
        if opens_turn(self.match.state, self.last_actor):  # counted when it is played
            shown = self.turns[seat] + 1
        else:
            shown = self.turns[seat]
        self.state.manually_set_current_player_id(seat)
        view = seat_view(
            self.match.state,
            seat,
            names=self.names,
            recent=self.recent[seat],
            turn=shown,
        )
        self.recent[seat] = []
        self.state.add_observation(
            to_id=seat, message=view, observation_type=ta.ObservationType.GAME_BOARD
        )

    def _finish(self) -> None:
        state = self.match.state
        ranking = [int(seat) for seat in state.final_ranking[0]]
        totals = [int(total) for total in state.final_totals[0]]
        how = "stopped at the turn limit" if bool(state.truncated[0]) else "over"
        order = ", ".join(f"{self.names[seat]} ({totals[seat]})" for seat in ranking)
        reason = f"The match is {how}. Ranking (totals): {order}."
        self.state.add_observation(message=reason, observation_type=ta.ObservationType.GAME_ADMIN)
        # the engine's rewards are float32: 0.6 would read 0.6000000238
        rewards = {seat: round(float(value), 6) for seat, value in enumerate(self.match.rewards)}
        self._end(rewards, reason)

    def _lose_by_invalid(self, seat: int, error: str) -> None:
        others = [p for p in range(self.state.num_players) if p != seat]
        rewards = {p: 1.0 / len(others) for p in others}
        rewards[seat] = -1.0
        reason = f"{self.names[seat]} lost the match by invalid moves. The last: {error}"
        self.state.add_observation(message=reason, observation_type=ta.ObservationType.GAME_ADMIN)
        self._end(rewards, reason)

    def _end(self, rewards: dict[int, float], reason: str) -> None:
        """End the match as FFAMultiPlayerState.set_game_outcome does (TwoPlayerState has
        no such method; its set_winner knows only +1 and -1)."""
        self.state.rewards = rewards
        for seat in range(self.state.num_players):
            self.state.game_info[seat]["reason"] = reason
        self.state.done = True

    def _note_invalid_end(self, seat: int, error: str) -> None:
        """Tell the end TwoPlayerState gave (its reason is the refusal alone) as
        :meth:`_lose_by_invalid` tells it."""
        reason = f"{self.names[seat]} lost the match by invalid moves. The last: {error}"
        self.state.add_observation(message=reason, observation_type=ta.ObservationType.GAME_ADMIN)
        for info in self.state.game_info.values():
            info["reason"] = reason


def as_sentence(message: str) -> str:
    """``message`` as a sentence: a capital first letter and a full stop. TextArena puts
    a refusal between its own sentences (``Reason: ... Please resubmit ...``), and the
    parser's messages (``legal: play J♣, draw``) end without one."""
    message = message.strip()
    if message[:1].islower():
        message = message[0].upper() + message[1:]
    return message if message.endswith((".", "!", "?")) else message + "."


class KitAgent:
    """A policy of the kit (``policy(observation, mask) -> action``, e.g.
    ``sto_odno_env.bots.registry.load("expert")``) as a TextArena agent of ``env``: called
    with the text observation, it answers the move its policy picks from the seat's own
    observation vector (what that seat may know, :func:`observe_one`), as an action string
    in brackets (``[play Q♠]``), which the env reads back through the text interface."""

    def __init__(self, env: Any, policy: Any):
        self.env = env
        self.policy = policy

    def __call__(self, observation: str) -> str:
        game = _unwrapped(self.env)
        state = game.match.state
        seat = int(state.current_player[0])
        action = int(self.policy(observe_one(state, seat), state.legal[0]))
        return f"[{action_text(action, state)}]"


def _unwrapped(env: Any) -> StoOdnoTextEnv:
    """The :class:`StoOdnoTextEnv` inside TextArena's wrappers."""
    while not isinstance(env, StoOdnoTextEnv):
        if not hasattr(env, "env"):
            raise TypeError(f"{env!r} is not a StoOdnoTextEnv or a wrapper of one")
        env = env.env
    return env


def register_envs() -> list[str]:
    """Register every id of :func:`env_ids` with TextArena (each with ``-train`` and
    ``-raw``, as TextArena registers its games); ids already registered are left as they
    are. Returns the ids registered now."""
    from textarena.envs.registration import ENV_REGISTRY, register_with_versions
    from textarena.wrappers import (
        ActionFormattingWrapper,
        GameMessagesAndCurrentBoardObservationWrapper,
        LLMObservationWrapper,
    )

    wrappers = {
        "default": [LLMObservationWrapper, ActionFormattingWrapper],
        "-train": [GameMessagesAndCurrentBoardObservationWrapper, ActionFormattingWrapper],
    }
    done = []
    for env_id, rules in env_ids().items():
        if env_id in ENV_REGISTRY:
            continue
        register_with_versions(id=env_id, entry_point=ENTRY_POINT, wrappers=wrappers, rules=rules)
        done.append(env_id)
    return done


register_envs()
