"""Where the engine's random events come from: each game's own stream, or a record.

The engine asks a :class:`Chance` for every random event: a round's deck, the first
dealer, a reshuffle's new stock, a stolen card. :class:`RandomChance` answers from each
game's counter-based stream (:mod:`.rng`); the replayer answers from a record
(:class:`sto_odno_env.records.replay.RecordChance`); tests script them
(:class:`sto_odno_env.records.scenario.ScriptedChance`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import numpy as np

from . import rng
from .cards import DECK_SIZES

if TYPE_CHECKING:
    from .core.state import State


class Chance(Protocol):
    """Where the engine's random events come from (the RNG streams, or a record)."""

    def deck(self, state: State, games: np.ndarray) -> np.ndarray:
        """(n, N) card ids (N: the rule set's deck), top of the deck first, for a new round."""

    def first_dealer(self, state: State, games: np.ndarray) -> np.ndarray:
        """(n,) the dealer (or leader) of a match's first round."""

    def shuffle(
        self, state: State, games: np.ndarray, cards: np.ndarray, counts: np.ndarray
    ) -> np.ndarray:
        """New stocks from ``cards[i, :counts[i]]`` (the pile but its top), as stacks:
        entry ``counts[i] - 1`` is the top card (drawn first)."""

    def steal(
        self, state: State, games: np.ndarray, drawer: np.ndarray, victim: np.ndarray
    ) -> np.ndarray:
        """(n,) the card each drawer takes from the victim's hand."""


class RandomChance:
    """The default chance: each game's own counter-based stream (:mod:`.rng`).

    The first dealer and each round's deck depend only on the match seed and the round
    number, so the same seed deals the same cards whatever was played before: that is
    what duplicate deals (the same deal with the seats permuted) rely on. Reshuffles and
    steals take the next numbers of the game's running stream.
    """

    def _numbers(self, state: State, games: np.ndarray, count: int) -> np.ndarray:
        counters = state.rng_counter[games]
        values = rng.draw_u64(state.rng_key[games], counters, count)
        state.rng_counter[games] = counters + np.uint64(count)
        return values

    def _round_numbers(self, state: State, games: np.ndarray, count: int) -> np.ndarray:
        round_key = rng.mix64(state.rng_key[games] ^ rng.DEAL_SALT)
        start = state.round[games].astype(np.uint64) * np.uint64(1 << 32)
        return rng.draw_u64(round_key, start, count)

    def deck(self, state: State, games: np.ndarray) -> np.ndarray:
        cards = state.tables.deck.cards
        return np.argsort(self._round_numbers(state, games, cards), axis=1).astype(np.int8)

    def first_dealer(self, state: State, games: np.ndarray) -> np.ndarray:
        cards = state.tables.deck.cards
        values = self._round_numbers(state, games, cards + 1)[:, cards]
        return (values % np.uint64(state.players)).astype(np.int8)

    def shuffle(self, state, games, cards, counts):
        # Sorting by the complemented keys lays the cards out bottom first, so the top card
        # is the one with the smallest key, whatever the stack's size.
        size = state.tables.deck.cards
        keys = ~self._numbers(state, games, size)
        positions = _POSITIONS.get(size)
        if positions is None:  # a small deck
            positions = _POSITIONS[size] = np.arange(size)[None, :]
        keys[counts[:, None] <= positions] = _LAST_KEY
        order = np.argsort(keys, axis=1, kind="stable")
        order += np.arange(0, order.size, size)[:, None]
        return cards.reshape(-1)[order]

    def steal(self, state, games, drawer, victim):
        hands = state.hand[games, victim]
        counts = np.bitwise_count(hands).astype(np.uint64)
        pick = self._numbers(state, games, 1)[:, 0] % counts
        return _nth_card(hands, pick.astype(np.int64), state.tables.deck.cards)


_LAST_KEY = np.iinfo(np.uint64).max  # sorts the positions past a stack's size last (iinfo is slow)
_POSITIONS: dict[int, np.ndarray] = {size: np.arange(size)[None, :] for size in DECK_SIZES}
RANDOM_CHANCE = RandomChance()


def _nth_card(hands: np.ndarray, index: np.ndarray, cards: int) -> np.ndarray:
    """The ``index``-th lowest card of each hand (of a ``cards``-card deck)."""
    bits = np.unpackbits(hands.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    ranks = np.cumsum(bits[:, :cards], axis=1) - 1
    hit = (bits[:, :cards] == 1) & (ranks == index[:, None])
    return np.argmax(hit, axis=1).astype(np.int8)
