"""RULES.md §2 written out plainly, independent of the engine's tables (a test oracle)."""

from __future__ import annotations

from sto_odno_env.cards import NUM_CARDS, QUEEN, rank_of, suit_of
from sto_odno_env.rules import Rules


def playable(rules: Rules, top: int, ordered_suit: int) -> set[int]:
    """§2: the cards that may be played onto ``top`` (an empty table takes any card)."""
    if top == NUM_CARDS:
        return set(range(NUM_CARDS))
    if ordered_suit >= 0:
        return {c for c in range(NUM_CARDS) if suit_of(c) == ordered_suit or rank_of(c) == QUEEN}
    return {
        c
        for c in range(NUM_CARDS)
        if suit_of(c) == suit_of(top) or rank_of(c) == rank_of(top) or rules.effect_of(c).wild
    }
