"""The settle loop: apply decisions until every live game waits on a real one.

After the decisions of a step, :func:`settle` recomputes the legal actions and applies
every decision that is not a real one: forced decisions (one legal action, docs/rules.md §4) and
those of auto-played seats (:class:`Autoplay`). It truncates rounds that reach
``max_turns`` (§8) and ends waiting rounds through :func:`.rounds.end_waiting_rounds`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from ..chance import Chance
from .bits import U64_1, all_set, any_set
from .decisions import apply_decisions
from .legal import legal_bits
from .rounds import end_waiting_rounds, truncate
from .state import DONE, State


@dataclasses.dataclass(frozen=True)
class Autoplay:
    """Seats whose decisions the engine takes itself, from a policy of the legal actions.

    ``seats`` (B,) uint8 holds, per game, the bits of the seats played this way; ``policy``
    maps the legal-action bit masks of those decisions to actions (``policy(legal_bits)``).
    While a game still has a seat in the match that is not auto-played, its auto-played
    decisions are applied in the same loop as the forced ones, so a step runs on until a
    seat outside ``seats`` is to act (the vector env's random opponents use this).
    """

    seats: np.ndarray
    policy: Callable[[np.ndarray], np.ndarray]
    rows: np.ndarray = dataclasses.field(init=False, repr=False)  # seats * 64, for ACTING

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", np.asarray(self.seats).astype(np.intp) << 6)


def _acting_table() -> np.ndarray:
    """[auto-played seat bits * 64 + in_match bits] -> the auto-played seats that act:
    all of them while a seat that is not auto-played is still in, else none."""
    seats, in_match = np.divmod(np.arange(64 * 64), 64)
    return np.where((in_match & ~seats) != 0, seats, 0).astype(np.uint8)


ACTING = _acting_table()


# Score waiting round ends once they are 1/ROUND_END_SHARE of the games still deciding:
# measured best for random play at large batches (fewer, larger scoring calls against
# games waiting longer for their next round).
ROUND_END_SHARE = 8


_ONE_BIT = np.array(1, dtype=np.uint8)  # a count of np.bitwise_count (uint8)


def deciding(state: State, games: np.ndarray) -> np.ndarray:
    """The games among ``games`` whose match goes on and whose round is not ending."""
    return games[(state.phase[games] != DONE) & ~state.ending[games]]


def apply_and_truncate(
    state: State,
    games: np.ndarray,
    actions: np.ndarray,
    forced: bool | np.ndarray,
    chance: Chance,
    trace,
) -> None:
    """Apply one decision in each of ``games``, then truncate the rounds that reached
    ``max_turns`` on it (docs/rules.md §8)."""
    turn = apply_decisions(state, games, actions, forced, chance, trace)
    max_turns = state.tables.turn_limit
    if any_set(turn >= max_turns):  # count_nonzero: a fraction of max()'s cost on few games
        # A round that ended on this decision is not truncated (docs/rules.md §8); it is scored
        # when the step settles.
        over = games[(turn >= max_turns) & (state.phase[games] != DONE) & ~state.ending[games]]
        if over.size:
            truncate(state, over, trace)


def settle(
    state: State,
    games: np.ndarray,
    chance: Chance,
    trace,
    resolve_forced: bool,
    autoplay: Autoplay | None = None,
    actions: np.ndarray | None = None,
) -> None:
    """Apply the players' ``actions`` in ``games`` (when given, all legal); recompute legal
    actions; apply forced decisions (one legal action) until none is left.

    Rounds that end meanwhile wait (so each game's events stay in order) and are scored
    together once the waiting games are an eighth as many as those still deciding (or all
    that is left); their new rounds then join the loop. Scoring in few large groups keeps
    the per-call overhead low, and letting the new rounds join early keeps the loop short.
    With ``autoplay`` the decisions of its seats are applied in the same loop.
    """
    scratch = state.scratch
    if actions is None:
        games = deciding(state, games)
    else:
        # The players' games are live and not ending (step checked them): only a round end
        # or a match end on these decisions takes a game out of the loop.
        finished_before = scratch.matches_ended
        apply_and_truncate(state, games, actions, False, chance, trace)
        if scratch.ending or scratch.matches_ended != finished_before:
            games = deciding(state, games)
    while True:
        while games.size:
            bits = legal_bits(state, games)
            state.legal_bits[games] = bits
            if not resolve_forced:
                break
            # One legal action: its index is the popcount of bits - 1.
            forced = np.bitwise_count(bits) == _ONE_BIT
            acting = forced
            if autoplay is not None:
                seats = ACTING[autoplay.rows[games] + state.in_match[games]]
                acting = forced | ((seats >> state.current_player[games]) & 1 != 0)
            games = games[acting]
            if not games.size:
                break
            bits, forced = bits[acting], forced[acting]
            actions = np.bitwise_count(bits - U64_1).astype(np.intp)
            if autoplay is not None and not all_set(forced):  # forced is all set without it
                auto = ~forced
                actions[auto] = np.asarray(autoplay.policy(bits[auto]), dtype=np.intp)
            finished_before = scratch.matches_ended
            apply_and_truncate(state, games, actions, forced, chance, trace)
            if scratch.ending or scratch.matches_ended != finished_before:
                games = deciding(state, games)
                waiting = sum(e.size for e in scratch.ending)
                if waiting and waiting * ROUND_END_SHARE >= games.size:
                    break
        if not scratch.ending:
            return
        ending = end_waiting_rounds(state, chance, trace)
        assert ending is not None  # a round was waiting
        if resolve_forced:
            ending = deciding(state, ending)
            games = np.concatenate([games, ending]) if games.size else ending
        else:
            games = deciding(state, ending)
