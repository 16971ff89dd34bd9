"""B games with one learning seat each; the other seats are played by opponent policies.

This is the batched core under the single-agent env, the Gymnasium vector env and the
stable-baselines3 VecEnv. One :meth:`LearnerGames.step` applies the learner's action in
every game, then lets the opponents move, batched, until the learner is to act again in
every game: one policy call per opponent position (1..P-1 seats after the learner) per
round of moves, for all games at once.

An episode is the learner's match: it ends when the match ends (terminated, or truncated
by docs/rules.md §8) or when the learner is eliminated under ``last_survivor`` (terminated:
its place is final). The game then starts a new match at once (same-step auto-reset):
the step returns the new episode's first observation and keeps the last one in
``final_observation``. The learner's seat is drawn at random for every match unless
``learner_seat`` fixes it.

**Stragglers** (``ready_share``). Most games are at the learner's turn again after one or
two rounds of opponent moves, but a skip, a cover or a drawn card lets an opponent move
again, so the last rounds of a step carry only a handful of games at the full fixed cost
of a round. With ``ready_share=s`` a step returns once a share ``s`` of the games is at the
learner's turn (``result["ready"]``); the others (*stragglers*) keep what they gathered
and play their opponents on in the next step, batched with the games the learner just
moved in. The caller acts only for the ready games (its actions for the others are
ignored) and reads a ready game's entries as it does without the option: the reward since
the learner's last decision there, the end of its episode (``terminated``/``truncated``,
``final_observation``, reported when the game is next at the learner's turn, in the new
episode's first observation) and the observation it acts on. A game's episode is the
same sequence of observations, actions and rewards as without the option; only the step
in which each of its decisions arrives changes. Opponents that draw from a stream shared
by all games (random play, sampling networks) make other draws, as they do at another
batch size. The engine's own loop over forced decisions (one legal action: a chain of
them follows a cover, a draw, a round's end) has the same shape, so with the option this
layer applies them itself, one per round of moves, carried over like the opponents'
moves; the learner still never sees one.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..game import engine, rng
from ..game.rewards import pay_first_place
from ..game.rules import Rules
from ..views.observation import obs_size, observe, observe_one
from .opponents import Opponents
from .saved_games import engine_arrays, restore_engine_arrays
from .table_config import TableConfig, integer_actions, table_config

__all__ = ["LearnerGames", "engine_arrays", "restore_engine_arrays"]


class LearnerGames:
    """The batched learner-versus-opponents table (see the module docstring).

    The table's settings are a :class:`~sto_odno_env.envs.table_config.TableConfig`: ``config``,
    or ``rules``, ``players`` and keyword arguments that build one (``opponents``,
    ``learner_seat``, ``reward``, ``illegal_action``). ``batch`` games are stepped in this
    process (``workers`` is for :func:`learner_games`).

    ``opponents`` is one policy for every opponent position, a sequence of P-1 policies
    (entry ``i`` plays the seat ``i + 1`` places after the learner), or a table of
    opponents that differs from game to game (a self-play league): see
    :mod:`sto_odno_env.envs.opponents`.

    ``ready_share`` (a setting of the config) lets a step return before every game is at
    the learner's turn; see the module docstring and :meth:`step`.
    """

    state: engine.State  # the engine's games, from reset() on

    def __init__(
        self,
        rules: str | Rules | None = None,
        players: int | None = None,
        batch: int = 1,
        *,
        seed: int | None = None,
        copy: bool = True,
        config: TableConfig | None = None,
        **settings: Any,
    ):
        config = table_config(config, rules=rules, players=players, **settings)
        if config.workers != 1:
            raise ValueError(
                f"workers={config.workers}: LearnerGames steps its games in this process; "
                "use learner_games() or ShardedLearnerGames for worker processes"
            )
        self.config = config
        self.rules = config.rules
        self.players = config.players
        self.batch = batch
        self.reward_mode = config.reward
        self.illegal_action = config.illegal_action
        self.fixed_seat = config.learner_seat
        self.ready_share = config.ready_share
        self._use_opponents(config.opponents)
        self.learner = np.zeros(batch, dtype=np.int8)
        self.obs_size = obs_size(self.rules)  # OBS_SIZE, +1 with last_card_call
        self.obs = np.zeros((batch, self.obs_size), dtype=np.float32)
        self.copy = copy
        self._pending_seed = seed

    def set_opponents(self, opponents: Any) -> None:
        """Replace the opponent policies (one for all positions, or P-1 of them; registry
        names load those agents)."""
        self.config = self.config.replace(opponents=opponents)
        self._use_opponents(self.config.opponents)

    def _use_opponents(self, opponents: Any) -> None:
        """Set up the opponents of a checked config."""
        self._autoplay_cache: engine.Autoplay | None = None
        self._opponents = Opponents(opponents, self.players)
        self.opponents = self._opponents.policies  # one per position after the learner
        self.table = self._opponents.table

    def seed_opponents(self, seed: int) -> None:
        """Reseed the opponents that have a ``seed`` method (each its own stream)."""
        self._opponents.seed(seed)

    # --- lifecycle ---------------------------------------------------------------------------

    def reset(self, seed: int | None = None, seeds: np.ndarray | None = None) -> np.ndarray:
        """Start a match in every game; return the learner's observations (B, OBS_SIZE).

        Game ``b`` plays the engine's game ``b`` of ``init(..., seed=seed)``; ``seeds``
        gives each game's match seed instead.
        """
        if seeds is None:
            if seed is None:
                seed = self._pending_seed
            if seed is None:
                seed = int(np.random.SeedSequence().generate_state(1)[0])
            seeds = rng.game_seeds(int(seed), self.batch)
        seeds = np.asarray(seeds, dtype=np.int64)
        # The opponents' own randomness follows the games' seeds too.
        self.seed_opponents(int(rng.mix64(seeds.astype(np.uint64)).sum(dtype=np.uint64) >> 2))
        self._pending_seed = None
        self.state = engine.init(self.rules, self.players, self.batch, seeds=seeds)
        self._choose_seats(np.arange(self.batch))
        self._opponents.start_matches(np.arange(self.batch))
        self._episode_reward = np.zeros(self.batch, dtype=np.float32)
        self._clear_pending()
        self._restarted = np.ones(self.batch, dtype=bool)
        self._deal_again_where_over(np.arange(self.batch))
        self._run_opponents()  # every game to the learner's turn, with or without ready_share
        return self.observe()

    def _clear_pending(self) -> None:
        """No game has anything waiting to be reported."""
        B = self.batch
        # What a step reports for each game, gathered until the game is at the learner's
        # turn (``ready``): the reward, the end of its episode, an illegal action.
        self._reported = np.zeros(B, dtype=np.float32)
        self._terminated = np.zeros(B, dtype=bool)
        self._truncated = np.zeros(B, dtype=bool)
        self._illegal = np.zeros(B, dtype=bool)
        self._final: np.ndarray | None = (
            None  # (B, obs_size) the ended episodes' last observations, when any
        )

    def _choose_seats(self, games: np.ndarray, keys: np.ndarray | None = None) -> None:
        """The learner's seats in ``games``, from their matches' stream keys."""
        self._autoplay_cache = None
        if self.fixed_seat is not None:
            self.learner[games] = self.fixed_seat
            return
        # The seat comes from the match seed, so a game's episode depends on its seed only.
        if keys is None:
            keys = self.state.rng_key[games]
        values = rng.mix64(keys ^ np.uint64(0x5EA7))
        self.learner[games] = (values % np.uint64(self.players)).astype(np.int8)

    @property
    def legal_bits(self) -> np.ndarray:
        """(B,) uint64 the learner's legal actions as bit masks (bit ``a``: action ``a``;
        zero where none)."""
        return self.state.legal_bits

    def observe(self) -> np.ndarray:
        """The learner's observations of every game (also kept in ``obs``): a new array
        each call, or with ``copy=False`` the same buffer rewritten each call (no new
        memory to fault in: a few percent faster at large batches)."""
        if self.batch == 1:  # the single-agent env: the scalar encoder is several times faster
            row = observe_one(self.state, int(self.learner[0]))
            if self.copy:
                self.obs = row[None]
            else:
                self.obs[0] = row
        else:
            self.obs = observe(self.state, self.learner, out=None if self.copy else self.obs)
        return self.obs

    def masks(self) -> np.ndarray:
        """(B, A) int8 legal actions of the player to act (A: the rule set's number of
        actions): the learner's in every game ready for it (every game without
        ``ready_share``)."""
        return engine.legal_mask(self.state)

    # --- stepping ----------------------------------------------------------------------------

    def step(self, actions: np.ndarray, skip: np.ndarray | None = None) -> dict[str, Any]:
        """Apply the learner's actions, run the opponents, auto-reset finished episodes.

        Returns a dict: ``observation`` (B, OBS_SIZE) of the learner (the new episode's
        first one where an episode ended), and (B,) arrays ``reward`` (the learner's reward
        since its last decision), ``terminated``, ``truncated``, ``illegal``, ``ready``;
        ``final_observation`` holds the ended episodes' last observations (None if none).
        Every array is new, so the caller may keep it; with ``copy=False`` the observation
        is a buffer that the next step rewrites.

        ``ready`` marks the games at the learner's turn: every game, unless ``ready_share``
        is set. With it the step returns once that share of the games (those not in
        ``skip``) is ready, after one round of opponent moves at least; a game that is not
        ready has reward 0, no end and an observation of zeros, and the next step ignores
        its action and plays its opponents on. What it gathers meanwhile (rewards, the end
        of its episode, an illegal action) is reported in the step where it is ready.

        ``skip`` ((B,) bool) leaves those games as they are: their actions are ignored, their
        reward is 0 and what they gathered since their last decision waits for their next
        step (the vector env's next-step auto-reset returns a reset there; a trainer holds
        the games that have their share of a rollout). A game that is not ready plays on
        whether skipped or not.
        """
        state = self.state
        B = self.batch
        actions = integer_actions(actions, B)
        share = self.ready_share
        if share is None:
            # Every game is at the learner's turn; none has anything pending.
            turn = np.ones(B, dtype=bool)
            self._clear_pending()
        else:
            turn = self._ready()  # the stragglers play on
        self._restarted[turn] = False
        acting_mask = turn if skip is None else turn & ~skip
        if self.illegal_action == "raise":
            # The engine checks the actions: an illegal one raises before anything changes.
            acting = np.flatnonzero(acting_mask)
        else:
            illegal = ~engine.is_legal(state.legal_bits, actions) & acting_mask
            if illegal.any():
                # Penalize: the offender loses (-1) and its match ends at once.
                self._illegal |= illegal
                self._episode_reward[illegal] += -1.0
                self._end_episodes(np.flatnonzero(illegal), self._terminated)
                acting_mask = acting_mask & ~illegal
            acting = np.flatnonzero(acting_mask)
        if share is not None and not turn.all():
            # The stragglers' next opponent moves go into the engine call of the learner's
            # moves: one engine call fewer per step, and every straggler moves on.
            waiting = np.flatnonzero(~turn)
            actions = actions.copy()
            actions[waiting] = self._opponent_moves(waiting)
            acting = np.flatnonzero(acting_mask | ~turn)
        if acting.size:
            self._engine_step(acting, actions[acting])
        self._end_finished(acting)
        if share is None:
            self._run_opponents()
            ready = turn
        else:
            in_play = B if skip is None else B - int(np.count_nonzero(skip & turn))
            self._run_opponents(stragglers=in_play - math.ceil(share * in_play - 1e-9))
            ready = self._ready()
        ended = (self._terminated | self._truncated) & ready
        live = ready & ~ended
        if skip is not None:
            live &= ~skip
        self._reported[live] = self._episode_reward[live]
        self._episode_reward[live] = 0.0
        final: np.ndarray | None = None
        if ended.any() and share is None:
            final = self._final  # new this step, zeros where no episode ended
        elif ended.any():
            assert self._final is not None  # kept since the episodes ended
            final = np.zeros((B, self.obs_size), dtype=np.float32)
            final[ended] = self._final[ended]
        result: dict[str, Any]
        if share is None:
            # Nothing waits: hand out the arrays themselves (new every step).
            result = {
                "observation": self.observe(),
                "reward": self._reported,
                "terminated": self._terminated,
                "truncated": self._truncated,
                "illegal": self._illegal,
            }
        else:
            result = {
                "observation": self._observe_ready(ready),
                "reward": np.where(ready, self._reported, np.float32(0.0)),
                "terminated": self._terminated & ready,
                "truncated": self._truncated & ready,
                "illegal": self._illegal & ready,
            }
            # Reported now; the stragglers keep theirs.
            self._reported[ready] = 0.0
            self._terminated[ready] = False
            self._truncated[ready] = False
            self._illegal[ready] = False
        result["ready"] = ready
        result["final_observation"] = final
        return result

    def _observe_ready(self, ready: np.ndarray) -> np.ndarray:
        """The learner's observations of the ready games, zeros in the others' rows (kept
        in ``obs`` as :meth:`observe` does)."""
        # Observing every game and clearing the few others is cheaper than gathering the
        # ready games' rows and scattering them back.
        self.obs = observe(self.state, self.learner, out=None if self.copy else self.obs)
        self.obs[~ready] = 0.0
        return self.obs

    def _autoplay(self) -> engine.Autoplay | None:
        """With one opponent policy that reads only the legal actions (random play), the
        engine applies the opponents' decisions in its own loop (one step per learner move).
        Kept until the learner's seats or the opponents change."""
        if self._autoplay_cache is None:
            self._autoplay_cache = self._opponents.autoplay(self.learner)
        return self._autoplay_cache

    def _engine_step(
        self, games: np.ndarray, actions: np.ndarray, resolve_forced: bool = False
    ) -> None:
        state = self.state
        if self.reward_mode != "match":
            in_before = state.in_match[games].copy()
        autoplay = self._autoplay()
        # With ready_share the forced decisions (one legal action) are left to this layer,
        # which applies them with the next round of moves: a chain of them in a handful of
        # games then costs no engine pass of its own (the engine's loop over forced
        # decisions has the stragglers' shape too). Autoplay resolves them in the engine.
        resolve = resolve_forced or self.ready_share is None or autoplay is not None
        _, step_rewards, _ = engine.step(
            state, actions, games=games, autoplay=autoplay, resolve_forced=resolve
        )
        learner = self.learner[games].astype(np.intp)
        gained = step_rewards[games, learner]
        if self.reward_mode == "round":
            ended = state.rounds_ended[games] > 0
            was_in = (in_before.astype(np.intp) >> learner) & 1 == 1
            points = state.round_points[games, learner] / self.rules.target
            gained = gained - np.where(ended & was_in, points, 0.0)
        elif self.reward_mode == "first":
            gained = pay_first_place(
                gained,
                learner,
                in_before,
                state.in_match[games],
                state.terminated[games],
                self.players,
            )
        self._episode_reward[games] += gained

    def _end_finished(self, games: np.ndarray) -> np.ndarray:
        """End the episodes among ``games`` whose match is over or whose learner is out;
        return the games that restarted."""
        state = self.state
        learner_out = ((state.in_match[games].astype(np.intp) >> self.learner[games]) & 1) == 0
        if self.ready_share is not None and learner_out.any():
            self._settle_after_elimination(games[learner_out])
        truncated = state.truncated[games]
        terminated = state.terminated[games] | (learner_out & ~truncated)
        ended = terminated | truncated
        if not ended.any():
            return games[:0]
        restarted = games[ended]
        terminated = terminated[ended]
        # An episode that ends again before the learner acted in it is dropped silently.
        again = self._restarted[restarted]
        dropped = restarted[again]
        if dropped.size:
            self._episode_reward[dropped] = 0.0
            self._restart(dropped)
        fresh, terminated = restarted[~again], terminated[~again]
        self._end_episodes(fresh[terminated], self._terminated)
        self._end_episodes(fresh[~terminated], self._truncated)
        return restarted

    def _settle_after_elimination(self, games: np.ndarray) -> None:
        """The games among ``games`` (their learner is out) whose match plays on at a
        forced decision: resolve it, and those that follow, in the engine. Without
        ready_share the engine did so in the step that put the learner out, so the
        episode's last observation (taken next) sees the match after them."""
        state = self.state
        bits = state.legal_bits[games]
        over = state.terminated[games] | state.truncated[games]
        forced = ~over & ((bits & (bits - np.uint64(1))) == 0)
        if forced.any():
            actions = np.bitwise_count(bits[forced] - np.uint64(1)).astype(np.int64)
            self._engine_step(games[forced], actions, resolve_forced=True)

    def _end_episodes(self, games: np.ndarray, flags: np.ndarray) -> None:
        if not games.size:
            return
        flags[games] = True
        if self._final is None:
            self._final = np.zeros((self.batch, self.obs_size), dtype=np.float32)
        self._final[games] = observe(self.state, self.learner[games], games=games)
        self._reported[games] = self._episode_reward[games]
        self._episode_reward[games] = 0.0
        self._restart(games)

    def _restart(self, games: np.ndarray) -> None:
        # The seats are chosen before the deal, so a new match that opens with the
        # opponents to move is played on to the learner's turn in the same pass.
        seeds = rng.next_seeds(self.state.seed[games])
        self._choose_seats(games, rng.key_of_seed(seeds))
        self._restarted[games] = True
        self._opponents.start_matches(games)
        engine.reset_games(self.state, games, seeds, autoplay=self._autoplay())
        self._deal_again_where_over(games)

    def _deal_again_where_over(self, games: np.ndarray) -> None:
        # A deal can end its match before anyone decides: the forced decisions of the
        # opening (a cover the stock can only feed with the card just played, docs/rules.md
        # §8) run the first round to max_turns and it is truncated. No seat chose
        # anything there, so the game is dealt again with its next seed, as an episode
        # that ends before the learner acts is dropped.
        state = self.state
        over = games[state.terminated[games] | state.truncated[games]]
        if over.size:
            self._restart(over)

    def _run_opponents(self, stragglers: int = 0) -> None:
        """Let the opponents move until the learner is to act in every game but
        ``stragglers`` at most: each round of moves is one policy call per opponent
        position and one engine step for all games waiting."""
        waiting = np.flatnonzero(~self._ready())
        while waiting.size > stragglers:
            self._engine_step(waiting, self._opponent_moves(waiting))
            # A restarted game is among ``waiting``: its new match may open with an
            # opponent to act, which the filter below keeps.
            self._end_finished(waiting)
            waiting = waiting[~self._ready(waiting)]

    def _ready(self, games: np.ndarray | None = None) -> np.ndarray:
        """Whether the learner is to decide in ``games`` (all by default): its turn, at a
        decision that is not forced (those are left to this layer with ready_share)."""
        state = self.state
        if games is None:
            ready = state.current_player == self.learner
            bits = state.legal_bits
        else:
            ready = state.current_player[games] == self.learner[games]
            bits = state.legal_bits[games]
        if self.ready_share is not None:
            ready &= (bits & (bits - np.uint64(1))) != 0
        return ready

    def _opponent_moves(self, waiting: np.ndarray) -> np.ndarray:
        """The moves of the opponents to act in the games ``waiting``: one policy call per
        opponent position (or one call of the table of opponents)."""
        state = self.state
        if self.ready_share is not None:
            bits = state.legal_bits[waiting]
            forced = (bits & (bits - np.uint64(1))) == 0
            if forced.any():  # the one legal action: its index is the popcount of bits - 1
                actions = np.bitwise_count(bits - np.uint64(1)).astype(np.int64)
                choosing = np.flatnonzero(~forced)
                if choosing.size:
                    actions[choosing] = self._opponents.moves(
                        state, waiting[choosing], self.learner
                    )
                return actions
        return self._opponents.moves(state, waiting, self.learner)

    # --- saving a run ------------------------------------------------------------------------

    def get_state(self) -> dict[str, np.ndarray]:
        """Everything a resumed run needs to play on exactly, between steps: the engine
        state's arrays, the learner seats and the rewards not yet reported."""
        arrays = engine_arrays(self.state)
        arrays["learner"] = self.learner.copy()
        arrays["episode_reward"] = self._episode_reward.copy()
        if self.ready_share is not None:  # what the stragglers have yet to report
            arrays.update(
                {f"pending.{name}": getattr(self, f"_{name}").copy() for name in _PENDING}
            )
            final = self._final if self._final is not None else np.zeros_like(self.obs)
            arrays["pending.final"] = final.copy()
        return arrays

    def set_state(self, arrays: dict[str, np.ndarray]) -> None:
        """Restore what :meth:`get_state` returned (after :meth:`reset` on the same batch)."""
        restore_engine_arrays(self.state, arrays)
        self.learner[:] = arrays["learner"]
        self._episode_reward[:] = arrays["episode_reward"]
        self._autoplay_cache = None
        self._clear_pending()
        # Saved without ready_share (or before it existed): every game at the learner's
        # turn, nothing pending, no episode restarted since the learner's last decision.
        self._restarted = np.zeros(self.batch, dtype=bool)
        for name in _PENDING:
            if f"pending.{name}" in arrays:
                getattr(self, f"_{name}")[:] = arrays[f"pending.{name}"]
        if "pending.final" in arrays:
            self._final = np.array(arrays["pending.final"], dtype=np.float32)


# The per-game arrays a step with ready_share keeps for the games not ready yet.
_PENDING = ("reported", "terminated", "truncated", "illegal", "restarted")
