"""PettingZoo AEC environment ``sto_odno_v0``: the card game 101, one decision at a time.

| | |
|---|---|
| Import | ``from sto_odno_env import sto_odno_v0; env = sto_odno_v0.env()`` |
| Agents | ``player_0`` … ``player_{P-1}`` (2–6 players) |
| Actions | ``Discrete(42)``: 0–35 play card, 36–39 order suit ♠ ♣ ♦ ♥, 40 draw, 41 pass |
| Observation | ``Dict(observation=Box(float32, (189,)), action_mask=Box(0, 1, (42,), int8))`` |

A thin layer over the batched engine (:mod:`sto_odno_env.game.engine`) with a batch of one:
:class:`raw_env` and :func:`env`. What it takes and gives (the keyword arguments, other
rule sets' sizes, the observation, turns, rewards, eliminated players, illegal actions,
the global state, search and rendering, the version history) is written once, in
docs/environments.md, "PettingZoo AEC".
"""

from __future__ import annotations

import copy
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..game import engine, rng
from ..game.engine import IllegalActionError
from ..game.rewards import pay_first_place
from ..game.rules import Rules
from ..tools.errors import StoOdnoError
from ..views import picture
from ..views.observation import global_state, observation_space, observe_one, state_space
from ..views.render import RecentMoves, render_game
from .table_config import TableConfig, checked_action

ENV_NAME = "sto_odno_v0"
ELIMINATED = ("leave", "stay")


def render_modes() -> list[str]:
    """The render modes on offer: text always, ``"rgb_array"`` where Pillow is installed
    (so checkers that try every advertised mode pass on a base install)."""
    return ["human", "ansi", *(["rgb_array"] if picture.rgb_available() else [])]


def check_render_mode(render_mode: Any, allowed: list[str]) -> None:
    """A ValueError naming ``render_mode`` and the modes allowed, or the missing Pillow."""
    if render_mode in (None, *allowed):
        return
    if render_mode == "rgb_array":
        raise ValueError(picture.NEEDS_PILLOW)
    raise ValueError(f"render_mode={render_mode!r} is not allowed; allowed: {[None, *allowed]}")


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing wrapper, with the reads every turn makes (``last()``,
    ``agents`` and ``agent_selection`` for ``agent_iter()``) going straight to the env.

    PettingZoo's wrapper forwards them through its generic ``__getattr__``, eight lookups
    a turn at about a microsecond each; the checks before ``reset()`` stay the same.
    """

    def _check_reset(self, name: str) -> None:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._check_reset("agent_selection")
        return self.env.last(observe)

    @property
    def agents(self) -> list[str]:
        self._check_reset("agents")
        return self.env.agents

    @property
    def agent_selection(self) -> str:
        self._check_reset("agent_selection")
        return self.env.agent_selection


class MatchOverError(StoOdnoError):
    """A call that needs an agent to act after the match is over (call ``reset()``)."""


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped in PettingZoo's order enforcing wrapper (see above)."""
    return OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv, EzPickle):
    """The unwrapped ``sto_odno_v0`` AEC env (see the module docstring)."""

    metadata: dict[str, Any] = {
        "render_modes": render_modes(),
        "name": ENV_NAME,
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: str | Rules = "classic",
        players: int = 2,
        render_mode: str | None = None,
        reward: str = "match",
        illegal_action: str = "penalize",
        record: bool = False,
        eliminated: str = "leave",
    ):
        EzPickle.__init__(
            self, rules, players, render_mode, reward, illegal_action, record, eliminated
        )
        super().__init__()
        check_render_mode(render_mode, self.metadata["render_modes"])
        if eliminated not in ELIMINATED:
            raise ValueError(
                f"eliminated={eliminated!r} is not allowed; allowed: {', '.join(ELIMINATED)} "
                "('leave': an eliminated player leaves through a dead step; 'stay': it stays "
                "until the match ends, never selected)"
            )
        # The settings a learner table shares with this env are checked in one place.
        config = TableConfig(rules, players, reward=reward, illegal_action=illegal_action)
        self.rules = config.rules
        self.players = players
        self.render_mode = render_mode
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.eliminated = eliminated
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self.agent_seat = {agent: p for p, agent in enumerate(self.possible_agents)}
        self.num_actions = self.rules.num_actions  # from the deck and the last-card call
        shared_obs = observation_space(self.rules)
        shared_act: spaces.Discrete = spaces.Discrete(self.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, shared_obs)
        self.action_spaces = dict.fromkeys(self.possible_agents, shared_act)
        self.state_space = state_space(self.rules)
        self._zero_mask = np.zeros(self.num_actions, dtype=np.int8)
        self.record_events = record
        self._moves = self._new_trace()
        self._seed: int | None = None
        self._game: engine.State | None = None

    # --- spaces ----------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    # --- lifecycle ---------------------------------------------------------------------------

    def _new_trace(self) -> engine.Trace | RecentMoves | None:
        if self.record_events:
            return engine.Trace(1)
        # the text modes list the last moves; a picture does not (and costs no trace)
        return RecentMoves() if self.render_mode in ("ansi", "human") else None

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a match. ``reset(seed=S)`` plays the game ``engine.init(..., seed=S)`` plays
        (or, where that deal ends its match before anyone decides, the next seed's game).

        ``options={"state": state}`` starts from an engine state of one game instead (for
        example a hand-made deal from :mod:`sto_odno_env.records.scenario`); it is copied.
        """
        start = (options or {}).get("state")
        if start is not None:
            self._game = self._checked_start(start)
            self._seed = int(self._game.seed[0])
            self._moves = self._new_trace()
        else:
            if seed is not None:
                match_seed = int(rng.game_seeds(int(seed), 1)[0])
            elif self._seed is not None:
                match_seed = int(rng.next_seeds(np.array([self._seed]))[0])
            else:
                match_seed = int(np.random.SeedSequence().generate_state(2, np.uint64)[0] >> 1)
            self._game = engine.init(
                self.rules, self.players, 1, seeds=[match_seed], trace=self._moves
            )
            # A deal can end its match before anyone decides: the opening's forced
            # decisions alone can run the first round to max_turns (docs/rules.md §8). No
            # seat chose anything there, so the next seed is dealt, as the learner's table does.
            while self._game.done[0]:
                match_seed = int(rng.next_seeds(np.array([match_seed]))[0])
                self._moves = self._new_trace()
                self._game = engine.init(
                    self.rules, self.players, 1, seeds=[match_seed], trace=self._moves
                )
            self._seed = match_seed
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._mask = engine.legal_mask(self._game)[0]
        self._select_current()
        self._refresh_masks()

    def _select_current(self) -> None:
        seat = int(self._started_game("reset").current_player[0])
        if seat >= 0:
            self.agent_selection = self.possible_agents[seat]

    def _refresh_masks(self) -> None:
        """Only the selected live agent has a mask, in ``infos`` as in ``observe``."""
        for agent in self.agents:
            self.infos[agent]["action_mask"] = self._mask_of(agent)

    def _mask_of(self, agent: str) -> np.ndarray:
        acting = agent == self.agent_selection and not (
            self.terminations.get(agent) or self.truncations.get(agent)
        )
        return self._mask if acting else self._zero_mask

    def _was_dead_step(self, action: Any) -> None:
        super()._was_dead_step(action)
        self._refresh_masks()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()``, with a clear error once every agent is done (PettingZoo's
        own raises a bare ``KeyError``)."""
        if not self.agents:
            raise MatchOverError(
                "last(): every agent is done and the match is over; call reset() to play "
                "another match"
            )
        return super().last(observe)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_seat[agent]
        return {
            "observation": observe_one(self._started_game("observe"), seat),
            "action_mask": self._mask_of(agent).copy(),
        }

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._started_game("step")
        seat = self.agent_seat[agent]
        # Not an action of the space at all: an error in every illegal_action mode.
        action = checked_action(action, self.num_actions)
        self._cumulative_rewards[agent] = 0.0
        if not self._mask[action]:
            self._illegal(agent, action)
            return
        in_before = int(game.in_match[0])
        _, rewards, done = engine.step(game, np.array([action]), trace=self._moves)
        step_rewards = rewards[0].astype(float)
        if self.reward_mode == "round" and game.rounds_ended[0]:
            step_rewards -= game.round_points[0] / self.rules.target
        elif self.reward_mode == "first":
            step_rewards = pay_first_place(
                step_rewards,
                np.arange(self.players),
                in_before,
                int(game.in_match[0]),
                bool(game.terminated[0]),
                self.players,
            )
        paid = step_rewards.tolist()
        self.rewards = {a: paid[self.agent_seat[a]] for a in self.agents}
        self._accumulate_rewards()
        if done[0]:
            finished = self.truncations if game.truncated[0] else self.terminations
            for other in self.agents:
                # eliminated="stay": those out before the end finished their match earlier
                out = self.infos[other].get("eliminated", False)
                (self.terminations if out else finished)[other] = True
            self._mask = self._zero_mask
        else:
            self._mask = engine.legal_mask(game)[0]
            gone = in_before & ~int(game.in_match[0])
            if gone:
                stay = self.eliminated == "stay"
                for other in self.agents:
                    if gone >> self.agent_seat[other] & 1:
                        if stay:
                            self.infos[other]["eliminated"] = True
                        else:
                            self.terminations[other] = True
        del seat
        self._select_current()
        self._deads_step_first()
        self._refresh_masks()
        if self.render_mode == "human":
            self.render()

    def _illegal(self, agent: str, action: Any) -> None:
        game = self._started_game("step")
        message = engine.illegal_bits_message(
            int(game.legal_bits[0]),
            action,
            phase=int(game.phase[0]),
            deck=game.tables.deck,
        )
        if self.illegal_action == "raise":
            raise IllegalActionError(f"{agent}: {message}")
        self.rewards = {a: (-1.0 if a == agent else 0.0) for a in self.agents}
        self._accumulate_rewards()
        for other in self.agents:
            self.terminations[other] = True
            self.infos[other]["action_mask"] = self._zero_mask
        self.infos[agent]["illegal_action"] = message
        self._mask = self._zero_mask

    def _checked_start(self, start: engine.State) -> engine.State:
        if not isinstance(start, engine.State) or start.batch != 1:
            raise ValueError("options['state'] must be an engine State of one game")
        if start.players != self.players or start.rules != self.rules:
            raise ValueError(
                f"options['state'] plays {start.players} players under rules "
                f"{start.rules.name!r}; this env has {self.players} under {self.rules.name!r}"
            )
        if start.done[0]:
            raise ValueError("options['state'] is a finished match")
        return start.copy()

    def record(self) -> list[dict[str, Any]]:
        """The record events (docs/rules.md §10) of the current match, with ``record=True``."""
        if not self.record_events:
            raise ValueError("this env keeps no record: create it with record=True")
        assert isinstance(self._moves, engine.Trace)  # record=True keeps a Trace
        return list(self._moves.current[0])

    # --- search and debugging -------------------------------------------------------------

    def _started_game(self, name: str) -> engine.State:
        if self._game is None:
            raise gymnasium.error.ResetNeeded(f"{name}() before reset(); call reset() first")
        return self._game

    def state(self) -> np.ndarray:
        """PettingZoo's global state: a float32 array in ``state_space`` with every hand
        visible (:func:`sto_odno_env.views.observation.global_state`; a new array each call)."""
        return global_state(self._started_game("state"))[0]

    def engine_state(self) -> engine.State:
        """A copy of the full engine state (every hand and the stock order), for search,
        debugging and pictures (``picture.table_svg(env.unwrapped.engine_state())``)."""
        return self._started_game("engine_state").copy()

    def get_state(self) -> dict[str, Any]:
        """A snapshot of the env that :meth:`set_state` restores."""
        return {
            "game": self._started_game("get_state").copy(),
            "seed": self._seed,
            "agents": self.agents[:],
            "agent_selection": self.agent_selection,
            "dicts": copy.deepcopy(
                (
                    self.rewards,
                    self._cumulative_rewards,
                    self.terminations,
                    self.truncations,
                    self.infos,
                )
            ),
            "mask": self._mask.copy(),
            "skip": getattr(self, "_skip_agent_selection", None),
            "moves": copy.deepcopy(self._moves),
        }

    def set_state(self, snapshot: dict[str, Any]) -> None:
        """Restore a snapshot taken by :meth:`get_state` (the snapshot stays reusable)."""
        self._game = snapshot["game"].copy()
        self._seed = snapshot["seed"]
        self.agents = snapshot["agents"][:]
        self.agent_selection = snapshot["agent_selection"]
        (
            self.rewards,
            self._cumulative_rewards,
            self.terminations,
            self.truncations,
            self.infos,
        ) = copy.deepcopy(snapshot["dicts"])
        self._mask = snapshot["mask"].copy()
        self._skip_agent_selection = snapshot["skip"]
        self._moves = copy.deepcopy(snapshot["moves"])
        for agent in self.agents:
            self.infos[agent]["action_mask"] = (
                self._mask if agent == self.agent_selection else self._zero_mask
            )

    def clone(self) -> raw_env:
        """An independent copy of this env in its current state."""
        twin = raw_env(
            self.rules,
            self.players,
            self.render_mode,
            self.reward_mode,
            self.illegal_action,
            self.record_events,
            self.eliminated,
        )
        twin.set_state(self.get_state())
        return twin

    # --- rendering --------------------------------------------------------------------------

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; nothing to draw")
            return None
        if self.render_mode == "rgb_array":
            from ..views.picture import table_rgb  # Pillow, imported only when a picture is drawn

            return table_rgb(self._started_game("render"), 0, names=self.possible_agents)
        moves = (
            self._moves.moves
            if isinstance(self._moves, RecentMoves)
            else (
                [e for e in self._moves.current[0] if e["type"] in RecentMoves.KINDS][-8:]
                if self._moves is not None
                else ()
            )
        )
        text = render_game(self._started_game("render"), 0, self.possible_agents, moves)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass
