"""The batched rules engine: B games of 101 stepped at once with numpy array code.

The state (:class:`State`) holds B games of P players, batch dimension first; card sets are
36-bit masks in ``uint64`` (52-bit with ``deck: 52``). The API is functional in shape
(state in, state out) but mutates the arrays in place for speed; :meth:`State.copy` takes a
snapshot::

    state = init(rules, players=4, batch=1024, seed=0)
    mask = legal_mask(state)                       # (B, num_actions) int8, player to act
    state, rewards, done = step(state, actions)    # one action per game

``step`` applies one decision per game, then resolves everything that is not a real
decision (docs/rules.md): forced decisions (exactly one legal action, §4), penalty draws and
skips (§5), reshuffles and steals (§6), the round end, scoring and eliminations (§7), the
next round's deal, match end and truncation (§8). After ``step`` every live game waits on
a decision with at least two legal actions.

Phases (``state.phase``): PLAY, AFTER_DRAW, COVER, ORDER, RESPOND; DONE once a match is over
(``cards.PHASE_*``); CALL (``PHASE_CALL``) only with ``last_card_call``. Actions: 0–35 play a
card, 36–39 order a suit, 40 draw (or accept a stacked penalty), 41 pass, and 42 call with
``last_card_call`` (:mod:`sto_odno_env.game.cards`; :func:`num_actions` per rule set). With
``deck: 52`` (docs/rules.md §12) the ids follow the rule set's deck (``state.tables.deck``):
0–51 play, 52–55 order, 56 draw, 57 pass, 58 call.

Randomness comes from a counter-based stream per game (:mod:`sto_odno_env.game.rng`) unless a
``chance`` object supplies it (replaying a record does). ``trace`` collects the events of
docs/rules.md §10 per game when given.

This module is the facade; the stages of a turn live in :mod:`sto_odno_env.game.core`
(docs/architecture.md maps each rule to its function).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import rng
from .cards import (
    CALL,
    DRAW,
    NO_CARD,
    NUM_ACTIONS,
    PASS,
    PHASE_AFTER_DRAW,
    PHASE_CALL,
    PHASE_COVER,
    PHASE_DONE,
    PHASE_NAMES,
    PHASE_ORDER,
    PHASE_PLAY,
    PHASE_RESPOND,
)
from .chance import RANDOM_CHANCE, Chance, RandomChance
from .core.bits import any_set, unpack_actions
from .core.legal import (
    IllegalActionError,
    check_actions,
    illegal_bits_message,
    illegal_message,
    is_legal,
    sample_actions,
    update_legal,
)
from .core.rounds import RECORD_VERSION, start_match
from .core.scoring import hand_points, match_rewards, ranking_keys
from .core.settle import Autoplay, settle
from .core.state import NOBODY, State, empty_state
from .rules import Rules, load_rules
from .trace import EventSink, Trace

# The phase codes under their short names, as the engine has always exported them.
PLAY, AFTER_DRAW, COVER, ORDER, RESPOND, DONE = (
    PHASE_PLAY,
    PHASE_AFTER_DRAW,
    PHASE_COVER,
    PHASE_ORDER,
    PHASE_RESPOND,
    PHASE_DONE,
)


def init(
    rules: Rules | str,
    players: int,
    batch: int = 1,
    seed: int = 0,
    *,
    seeds: Sequence[int] | np.ndarray | None = None,
    chance: Chance | None = None,
    trace: EventSink | None = None,
    resolve_forced: bool = True,
) -> State:
    """Start ``batch`` matches and deal their first round.

    Game ``b`` plays the match seed ``rng.game_seeds(seed, batch)[b]`` (or ``seeds[b]``);
    a game's play depends on its own seed only, so ``init(..., seeds=[s])`` replays it alone.
    """
    state = empty_state(rules, players, batch)
    if seeds is None:
        match_seeds = rng.game_seeds(seed, batch)
    else:
        match_seeds = np.asarray(seeds, dtype=np.int64).reshape(-1)
        if match_seeds.shape != (batch,) or any_set(match_seeds < 0):
            raise ValueError(f"seeds must be {batch} non-negative integers")
    reset_games(
        state,
        np.arange(batch),
        match_seeds,
        chance=chance,
        trace=trace,
        resolve_forced=resolve_forced,
    )
    return state


def reset_games(
    state: State,
    games: np.ndarray,
    seeds: np.ndarray | None = None,
    *,
    chance: Chance | None = None,
    trace: EventSink | None = None,
    autoplay: Autoplay | None = None,
    resolve_forced: bool = True,
) -> None:
    """Start new matches in the given games (the next seed of each slot by default).

    ``resolve_forced=False`` leaves the first forced decision to the caller (the replayer
    checks each recorded decision, forced ones included).
    """
    games = np.asarray(games, dtype=np.intp)
    if seeds is None:
        seeds = rng.next_seeds(state.seed[games])
    chance = chance or RANDOM_CHANCE
    start_match(state, games, np.asarray(seeds, dtype=np.int64), chance, trace)
    settle(state, games, chance, trace, resolve_forced, autoplay)


def num_actions(rules: Rules | str) -> int:
    """The size of a rule set's action space: ``NUM_ACTIONS`` (42; 58 with ``deck: 52``),
    plus 1 with ``last_card_call`` (the call, ``CALL``). Masks and ``Discrete`` spaces have
    this size."""
    return load_rules(rules).num_actions


def legal_mask(state: State) -> np.ndarray:
    """(B, A) int8: legal actions of the player to act (all zero once a match is over); A is
    the rule set's number of actions (:func:`num_actions`: 42, 58 with 52 cards, one more
    with the call)."""
    return unpack_actions(state.legal_bits, state.tables.num_actions)


def refresh_legal(state: State, games: np.ndarray | None = None) -> None:
    """Recompute the legal actions of the live games (all by default) after a state was
    built or edited by hand (:mod:`sto_odno_env.views.determinise` does)."""
    update_legal(state, np.arange(state.batch) if games is None else np.asarray(games, np.intp))


def step(
    state: State,
    actions: np.ndarray | Sequence[int],
    *,
    auto_reset: bool = False,
    chance: Chance | None = None,
    trace: EventSink | None = None,
    resolve_forced: bool = True,
    games: np.ndarray | None = None,
    autoplay: Autoplay | None = None,
) -> tuple[State, np.ndarray, np.ndarray]:
    """Apply one action per game for its player to act, then resolve all that follows.

    Actions of games whose match is over are ignored. Returns ``(state, rewards, done)``:
    ``rewards`` (B, P) float32 are match rewards earned in this step, ``done`` (B,) bool
    marks matches that ended. A player's match reward (see :func:`match_rewards`) comes
    once: when the match ends, or when the player is eliminated under ``last_survivor``
    (its place is final then). A truncated match gives no reward to those still in.
    With ``auto_reset`` finished games start a new match at once (the next seed of their
    slot); ``state.final_totals``/``final_ranking`` keep the finished match's result.
    ``games`` (indices) steps only those games, with one action each. ``autoplay``
    (:class:`Autoplay`) lets the step play on through the decisions of seats taken by a
    policy of the legal actions.
    ``resolve_forced=False`` stops after the one decision (records list forced ones).
    Raises :class:`IllegalActionError` for an illegal action, before changing anything.
    """
    chance = chance or RANDOM_CHANCE
    live, chosen = check_actions(state, actions, games)
    if not live.size:  # every match is over: nothing to do
        state.rewards.fill(0.0)
        done = np.zeros(state.batch, dtype=bool)
        return state, state.rewards.copy(), done
    if state.outputs_set:  # else still zero since the last step cleared them
        state.rewards.fill(0.0)
        state.round_points.fill(0)
        state.rounds_ended.fill(0)
        state.step_terminated.fill(False)
        state.step_truncated.fill(False)
        state.outputs_set = False
    settle(state, live, chance, trace, resolve_forced, autoplay, actions=chosen)
    done = state.step_terminated | state.step_truncated
    if auto_reset and any_set(done):
        reset_games(state, done.nonzero()[0], chance=chance, trace=trace)
    return state, state.rewards.copy(), done


__all__ = [
    "AFTER_DRAW",
    "CALL",
    "COVER",
    "DONE",
    "DRAW",
    "NOBODY",
    "NO_CARD",
    "NUM_ACTIONS",
    "ORDER",
    "PASS",
    "PHASE_CALL",
    "PHASE_NAMES",
    "PLAY",
    "RANDOM_CHANCE",
    "RECORD_VERSION",
    "RESPOND",
    "Autoplay",
    "Chance",
    "IllegalActionError",
    "RandomChance",
    "Rules",
    "State",
    "Trace",
    "empty_state",
    "hand_points",
    "illegal_bits_message",
    "illegal_message",
    "init",
    "is_legal",
    "legal_mask",
    "match_rewards",
    "num_actions",
    "ranking_keys",
    "refresh_legal",
    "reset_games",
    "sample_actions",
    "step",
    "unpack_actions",
]
