"""Array views of observations and rule tables that the bots reason with.

Everything is batched: ``N`` observations at once, cards as (N, C) arrays with C the rule
set's number of cards (:class:`CardTables` follows the rule set's deck; the module
constants ``CARD_SUIT``, ``CARD_RANK`` and ``IS_QUEEN`` are those of the 36-card deck).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..game.cards import NUM_CARDS, NUM_RANKS, QUEEN, Deck
from ..game.rules import Rules, load_rules
from ..game.tables import NO_CARD, compile_rules
from ..views.observation import ObservationView

CARD_SUIT = np.arange(NUM_CARDS) // NUM_RANKS
CARD_RANK = np.arange(NUM_CARDS) % NUM_RANKS
IS_QUEEN = CARD_RANK == QUEEN


@dataclass(frozen=True)
class CardTables:
    """Per-card numbers of a rule set, as float arrays for scoring (C: the rule set's number
    of cards)."""

    deck: Deck
    suit: np.ndarray  # (C,) int: the suit of each card
    is_queen: np.ndarray  # (C,) bool
    card_bit: np.ndarray  # (C + 1,) uint64: the bit of each card (0 for no card)
    points: np.ndarray  # (C,)
    draw: np.ndarray  # (C,)
    skip: np.ndarray  # (C,) bool
    cover: np.ndarray  # (C,) bool
    order_suit: np.ndarray  # (C,) bool
    finish_points: np.ndarray  # (C,) the finisher's score on this card (negative = bonus)
    multiplier: np.ndarray  # (C,) the others' multiplier when finishing on this card
    follows: np.ndarray  # (C, C) bool: [c, d] card d may be played onto top card c
    follow_bits: np.ndarray  # (C,) uint64: the cards that may be played onto card c
    cover_can_finish: bool
    target: int
    reset_at_target: bool

    @classmethod
    def of(cls, rules: Rules | str) -> CardTables:
        tables = compile_rules(load_rules(rules))
        deck = tables.deck
        n = deck.cards
        playable = tables.playable[:n, deck.suits]  # the last column: no ordered suit
        follows = np.array([[bool(int(playable[c]) >> d & 1) for d in range(n)] for c in range(n)])
        return cls(
            deck=deck,
            suit=np.arange(n) // deck.ranks,
            is_queen=(np.arange(n) % deck.ranks == deck.queen)
            if deck.queen is not None
            else np.zeros(n, dtype=bool),
            card_bit=tables.card_bit,
            points=tables.points.astype(np.float64),
            draw=tables.draw[:n].astype(np.float64),
            skip=tables.skip[:n].copy(),
            cover=tables.cover[:n].copy(),
            order_suit=tables.order_suit[:n].copy(),
            finish_points=tables.bonus_points[:n].astype(np.float64),
            multiplier=tables.bonus_multiplier[:n].astype(np.float64),
            follows=follows,
            follow_bits=playable.copy(),
            cover_can_finish=tables.cover_can_finish,
            target=tables.target,
            reset_at_target=tables.reset_at_target,
        )


def view_of(observations: np.ndarray, rules: Rules) -> ObservationView:
    """An ObservationView with the rule set's target (for decoding totals) and deck."""
    return ObservationView(np.atleast_2d(observations), rules.target, rules.deck)


def next_player_hand_size(view: ObservationView) -> np.ndarray:
    """(N,) hand size of the next player still in the match, clockwise."""
    inside = view.others_in
    first = np.argmax(inside, axis=1)
    return view.others_hand_size[np.arange(first.size), first]


def players_in(view: ObservationView) -> np.ndarray:
    """(N,) number of players still in the match, the observer included."""
    return 1 + view.others_in.sum(axis=1)


__all__ = [
    "CARD_RANK",
    "CARD_SUIT",
    "IS_QUEEN",
    "NO_CARD",
    "CardTables",
    "hand_bits",
    "next_player_hand_size",
    "players_in",
    "view_of",
]


def hand_bits(hand: np.ndarray) -> np.ndarray:
    """(N,) uint64 card masks from (N, C) bool hands (C: the deck's cards)."""
    packed = np.packbits(np.asarray(hand, dtype=bool), axis=1, bitorder="little")
    padded = np.zeros((packed.shape[0], 8), dtype=np.uint8)
    padded[:, : packed.shape[1]] = packed
    return padded.view(np.uint64)[:, 0]
