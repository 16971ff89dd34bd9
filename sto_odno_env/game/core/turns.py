"""Passing the turn after a card took effect (docs/rules.md §5).

The next player takes the card's penalty (or, with ``stacking``, may answer it with a card
of the same rank: RESPOND) and is skipped if the card skips.
"""

from __future__ import annotations

import numpy as np

from ..cards import PHASE_RESPOND
from .bits import I16_0, U64_0, any_set, cells
from .draws import draw_many
from .state import NEXT_SEAT, PLAY, SEAT_ROWS, State, next_seat


def pass_with_effects(
    state: State, games: np.ndarray, player: np.ndarray, cards: np.ndarray, chance, trace
) -> None:
    """The turn passes from ``player`` after ``cards`` took effect (docs/rules.md §5)."""
    tables = state.tables
    penalty = tables.draw[cards]
    seat_base = SEAT_ROWS.take(state.in_match[games])
    target = NEXT_SEAT[seat_base + player]
    if tables.stacking:  # only stacking accumulates a pending penalty, or answers one
        penalty = penalty + state.pending[games]
        hands, at = cells(state.hand, games, target)
        respond = (penalty > 0) & ((hands[at] & tables.respond[cards]) != U64_0)
        if any_set(respond):
            responders = games[respond]
            state.phase[responders] = PHASE_RESPOND
            state.current_player[responders] = target[respond]
            state.pending[responders] = penalty[respond]
            others = ~respond
            games, target, cards, penalty, seat_base = (
                games[others],
                target[others],
                cards[others],
                penalty[others],
                seat_base[others],
            )
    draws = penalty > I16_0
    if any_set(draws):
        draw_many(state, games[draws], target[draws], penalty[draws], chance, trace)
        if tables.stacking:
            state.pending[games] = 0
    skips = tables.skip[cards]
    if any_set(skips):
        target = np.where(skips, NEXT_SEAT[seat_base + target], target)
    state.current_player[games] = target
    state.phase[games] = PLAY


def pass_turn(state: State, games: np.ndarray) -> None:
    """The turn passes to the next seat, with no effect (PASS; a lapsed cover)."""
    if games.size:
        state.current_player[games] = next_seat(state, games, state.current_player[games])
        state.phase[games] = PLAY
        state.drawn_card[games] = state.tables.no_card_id
