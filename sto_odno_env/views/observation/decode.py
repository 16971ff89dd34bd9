"""Observation vectors read back by name: :class:`ObservationView` (for bots and tests)."""

from __future__ import annotations

import numpy as np

from ...game.cards import (
    NUM_CARDS,
    Deck,
    deck_of,
)
from ...game.rules import MAX_PLAYERS
from .fields import _encoding


class ObservationView:
    """Named, decoded views of a batch of observation vectors (for bots and tests).

    >>> view = ObservationView(obs, target=101)
    >>> view.hand        # (N, 36) bool (N, 52) with cards=52
    >>> view.top_card    # (N,) int, -1 on an empty table
    """

    def __init__(self, obs: np.ndarray, target: int = 101, cards: int | Deck = NUM_CARDS):
        self.obs = np.atleast_2d(obs)
        self.target = target
        self.deck = deck_of(cards)
        self.cards = self.deck.cards
        self.layout = _encoding(self.deck).layout

    def field(self, name: str) -> np.ndarray:
        """The raw float slice of one field."""
        return self.obs[:, self.layout[name]]

    def _one_hot(self, name: str) -> np.ndarray:
        """The set slot of a one-hot block, or -1 for its "none" slot."""
        block = self.field(name)
        index = block.argmax(axis=1)
        return np.where(index == block.shape[1] - 1, -1, index)

    @property
    def hand(self) -> np.ndarray:
        return self.field("hand") > 0.5

    @property
    def discard(self) -> np.ndarray:
        return self.field("discard") > 0.5

    @property
    def top_card(self) -> np.ndarray:
        return self._one_hot("top_card")

    @property
    def ordered_suit(self) -> np.ndarray:
        return self._one_hot("ordered_suit")

    @property
    def phase(self) -> np.ndarray:
        return self._one_hot("phase")

    @property
    def drawn_card(self) -> np.ndarray:
        return self._one_hot("drawn_card")

    @property
    def to_act(self) -> np.ndarray:
        return self._one_hot("to_act")

    @property
    def pending(self) -> np.ndarray:
        return np.rint(self.field("pending")[:, 0] * self.cards).astype(np.int64)

    @property
    def stock_size(self) -> np.ndarray:
        return np.rint(self.field("stock_size")[:, 0] * self.cards).astype(np.int64)

    @property
    def num_players(self) -> np.ndarray:
        return np.rint(self.field("num_players")[:, 0] * MAX_PLAYERS).astype(np.int64)

    @property
    def others_hand_size(self) -> np.ndarray:
        return np.rint(self.field("others_hand_size") * self.cards).astype(np.int64)

    @property
    def others_total(self) -> np.ndarray:
        return np.rint(self.field("others_total") * self.target).astype(np.int64)

    @property
    def others_in(self) -> np.ndarray:
        return self.field("others_in") > 0.5

    @property
    def own_total(self) -> np.ndarray:
        return np.rint(self.field("own_total")[:, 0] * self.target).astype(np.int64)
