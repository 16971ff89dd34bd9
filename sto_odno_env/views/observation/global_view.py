"""The global state: the table from no seat's point of view, every hand visible
(PettingZoo's ``state()``, what a centralised critic reads): :func:`global_state`, its
layout, size and space, ``STATE_VERSION``."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ...game.cards import (
    NUM_SUITS,
    PHASE_AFTER_DRAW,
    PHASE_CALL,
    PHASE_PLAY,
    Deck,
    deck_of,
)
from ...game.engine import State
from ...game.rules import MAX_PLAYERS, Rules, load_rules
from .bounds import _scalar_bounds
from .fields import NUM_PHASES

if TYPE_CHECKING:
    from gymnasium import spaces

# Bumped whenever the state layout changes, so that a critic trained on another layout is
# refused (as OBSERVATION_VERSION for the observation).
STATE_VERSION: int = 1


def _state_fields(cards: int, call: bool, suits: int = NUM_SUITS) -> tuple[tuple[str, int], ...]:
    """(name, size) of the global state of a deck of ``cards`` cards (see :func:`global_state`)."""
    return (
        ("hands", MAX_PLAYERS * cards),
        ("discard", cards),
        ("in_match", MAX_PLAYERS),
        ("dealer", MAX_PLAYERS),
        ("top_card", cards + 1),
        ("ordered_suit", suits + 1),
        ("phase", NUM_PHASES + 1),
        ("drawn_card", cards + 1),
        ("to_act", MAX_PLAYERS + 1),
        ("pending", 1),
        ("stock_size", 1),
        ("hand_size", MAX_PLAYERS),
        ("total", MAX_PLAYERS),
        ("num_players", 1),
        *((("call", 1),) if call else ()),
    )


@lru_cache(maxsize=8)
def _state_layout(deck: Deck | int, call: bool) -> dict[str, slice]:
    deck = deck_of(deck)
    layout, start = {}, 0
    for name, size in _state_fields(deck.cards, call, deck.suits):
        layout[name] = slice(start, start + size)
        start += size
    return layout


def state_layout(rules: Rules | str) -> dict[str, slice]:
    """The slices of a rule set's global state (:func:`global_state`), by field name."""
    rules = load_rules(rules)
    return dict(_state_layout(rules.deck, rules.last_card_call))


def state_size(rules: Rules | str) -> int:
    """The global state's size: 371 for 36 cards, 515 for 52 (``deck: 52``), plus 1 with
    ``last_card_call``."""
    rules = load_rules(rules)
    return next(reversed(_state_layout(rules.deck, rules.last_card_call).values())).stop


def state_space(rules: Rules | str) -> spaces.Box:
    """The ``Box`` of :func:`global_state` under ``rules``: 0/1 entries in [0, 1], the scalars
    bounded as in :func:`observation_space`."""
    from gymnasium import spaces  # for spaces only

    rules = load_rules(rules)
    layout = state_layout(rules)
    size = state_size(rules)
    low = np.zeros(size, dtype=np.float32)
    high = np.ones(size, dtype=np.float32)
    scalars = slice(layout["pending"].start, layout["num_players"].stop)
    low[scalars], high[scalars] = _scalar_bounds(rules, hands=MAX_PLAYERS, totals=MAX_PLAYERS)
    return spaces.Box(low=low, high=high, dtype=np.float32)


def _bits(masks: np.ndarray, cards: int) -> np.ndarray:
    """(..., cards) 0/1 of uint64 card masks."""
    return (masks[..., None] >> np.arange(cards, dtype=np.uint64)) & np.uint64(1)


def global_state(state: State, games: np.ndarray | None = None) -> np.ndarray:
    """(B, state_size(rules)) float32: the global state of every game, from no seat's point
    of view (PettingZoo's ``state()``: what a centralised critic reads).

    Seats are absolute (seat 0 first) and padded to six; entries of absent seats are zero.
    The fields (``state_layout(rules)``), 0/1 and one-hot first as in the observation:

    * ``hands``: every seat's hand, seat 0's ``N`` cards first (N = 36, or 52);
    * ``discard``: the pile, top card included; ``in_match``: seats still in;
      ``dealer``: one-hot dealer (the leader under ``leader_plays``);
    * ``top_card`` (last slot: empty table), ``ordered_suit`` (last: none), ``phase``
      (PLAY … RESPOND; last: match over; a CALL decision shows as PLAY, ``call`` marks it),
      ``drawn_card`` (the card drawn in AFTER_DRAW; last: none), ``to_act`` (the seat to act;
      last: nobody), each one-hot;
    * scalars: ``pending`` and ``stock_size`` / N, ``hand_size`` / N and ``total`` / target
      per seat, ``num_players`` / 6;
    * ``call`` (only with ``last_card_call``): 1 in a CALL decision.

    The stock's order is not in it (the stock's cards are those in no hand and not on the
    pile). ``games`` (indices) builds only those games' rows.
    """

    def rows(array: np.ndarray) -> np.ndarray:
        return array if games is None else array[games]

    tables = state.tables
    cards, target, P = tables.deck.cards, tables.target, state.players
    current = rows(state.current_player).astype(np.intp)
    B = current.shape[0]
    layout = _state_layout(tables.deck, tables.call)
    out = np.zeros((B, next(reversed(layout.values())).stop), dtype=np.float32)
    local = np.arange(B)

    def one_hot(name: str, slot: np.ndarray) -> None:
        out[local, layout[name].start + slot] = 1.0

    hands = rows(state.hand)
    begin = layout["hands"].start
    out[:, begin : begin + P * cards] = _bits(hands, cards).reshape(B, P * cards)
    out[:, layout["discard"]] = _bits(rows(state.discard_bits), cards)
    in_match = rows(state.in_match).astype(np.uint64)
    out[:, layout["in_match"].start : layout["in_match"].start + P] = _bits(in_match, P)
    one_hot("dealer", rows(state.dealer).astype(np.intp))
    one_hot("top_card", rows(state.top_card).astype(np.intp))
    one_hot(
        "ordered_suit",
        rows(state.ordered_suit).astype(np.intp) % (tables.deck.suits + 1),
    )
    phase = rows(state.phase).astype(np.intp)
    one_hot("phase", np.where(phase == PHASE_CALL, PHASE_PLAY, phase))
    drawn = np.where(phase == PHASE_AFTER_DRAW, rows(state.drawn_card), tables.deck.no_card)
    one_hot("drawn_card", drawn.astype(np.intp))
    one_hot("to_act", np.where(current >= 0, current, MAX_PLAYERS))
    out[:, layout["pending"].start] = rows(state.pending) / cards
    out[:, layout["stock_size"].start] = rows(state.stock_size) / cards
    sizes = layout["hand_size"].start
    out[:, sizes : sizes + P] = np.bitwise_count(hands) / cards
    totals = layout["total"].start
    out[:, totals : totals + P] = rows(state.totals) / target
    out[:, layout["num_players"].start] = P / MAX_PLAYERS
    if tables.call:
        out[:, layout["call"].start] = phase == PHASE_CALL
    return out
