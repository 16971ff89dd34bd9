"""What a seat may know, as a float32 vector from its own point of view.

One layout for every rule set and player count (other seats are padded to five), so a
policy can move between 2 and 6 players. ``LAYOUT`` maps each name to its slice:

================  ====  ===============================================================
name              size  meaning
================  ====  ===============================================================
hand              36    1 for each card the observer holds
top_card          36    one-hot top card of the discard pile (all zero on an empty table)
ordered_suit      4     one-hot suit ordered by the last queen (all zero for none)
phase             5     one-hot phase: PLAY, AFTER_DRAW, COVER, ORDER, RESPOND
drawn_card        36    one-hot card just drawn, only for the drawer in AFTER_DRAW
discard           36    1 for each card in the discard pile (public), top card included
pending           1     accumulated stacked penalty / 36
stock_size        1     cards in the stock / 36
to_act            6     one-hot seat to act, counted clockwise from the observer (0 = self)
others_hand_size  5     hand size / 36 of the seats after the observer, clockwise
others_total      5     their totals / target
others_in         5     1 while that seat is still in the match
others_dealer     5     1 for the dealer (the leader under leader_plays)
own_total         1     own total / target
own_dealer        1     1 if the observer is the dealer
num_players       1     players / 6
================  ====  ===============================================================

Entries for seats beyond the player count are zero. Nothing hidden enters: the other
hands and the stock order never change the vector (``tests/test_observation.py``).
"""

from __future__ import annotations

import numpy as np

from .cards import NUM_CARDS, NUM_SUITS
from .engine import AFTER_DRAW, DONE, NOBODY, State
from .rules import MAX_PLAYERS
from .tables import NO_CARD

NUM_PHASES = 5
MAX_OTHERS = MAX_PLAYERS - 1
CARD_SCALE = float(NUM_CARDS)

_FIELDS = (
    ("hand", NUM_CARDS),
    ("top_card", NUM_CARDS),
    ("ordered_suit", NUM_SUITS),
    ("phase", NUM_PHASES),
    ("drawn_card", NUM_CARDS),
    ("discard", NUM_CARDS),
    ("pending", 1),
    ("stock_size", 1),
    ("to_act", MAX_PLAYERS),
    ("others_hand_size", MAX_OTHERS),
    ("others_total", MAX_OTHERS),
    ("others_in", MAX_OTHERS),
    ("others_dealer", MAX_OTHERS),
    ("own_total", 1),
    ("own_dealer", 1),
    ("num_players", 1),
)


def _layout() -> dict[str, slice]:
    layout, start = {}, 0
    for name, size in _FIELDS:
        layout[name] = slice(start, start + size)
        start += size
    return layout


LAYOUT: dict[str, slice] = _layout()
OBS_SIZE: int = LAYOUT["num_players"].stop

_HAND, _DISCARD = LAYOUT["hand"].start, LAYOUT["discard"].start
_TOP, _SUIT = LAYOUT["top_card"].start, LAYOUT["ordered_suit"].start
_PHASE, _DRAWN = LAYOUT["phase"].start, LAYOUT["drawn_card"].start
_TO_ACT = LAYOUT["to_act"].start
_OTHERS_HAND, _OTHERS_TOTAL = LAYOUT["others_hand_size"].start, LAYOUT["others_total"].start
_OTHERS_IN, _OTHERS_DEALER = LAYOUT["others_in"].start, LAYOUT["others_dealer"].start


def observe(
    state: State, seat: int | np.ndarray | None = None, out: np.ndarray | None = None
) -> np.ndarray:
    """(B, OBS_SIZE) float32 observations of ``seat`` in every game.

    ``seat`` is one seat for all games, a (B,) array, or None for the player to act
    (games whose match is over are then observed from seat 0). ``out`` reuses a buffer.
    """
    B, P = state.batch, state.players
    games = np.arange(B)
    if seat is None:
        seat = np.maximum(state.current_player, 0)
    seat = np.broadcast_to(np.asarray(seat), (B,)).astype(np.intp)
    if seat.size and (seat.min() < 0 or seat.max() >= P):
        raise ValueError(f"seat must be in 0..{P - 1}, got {np.unique(seat).tolist()}")
    if out is None:
        obs = np.zeros((B, OBS_SIZE), dtype=np.float32)
    else:
        obs = out
        obs.fill(0.0)

    bits = np.empty((B, 2), dtype=np.uint64)
    bits[:, 0] = state.hand[games, seat]
    bits[:, 1] = state.discard_bits
    unpacked = np.unpackbits(bits.view(np.uint8).reshape(B, 16), axis=1, bitorder="little")
    obs[:, _HAND : _HAND + NUM_CARDS] = unpacked[:, :NUM_CARDS]
    obs[:, _DISCARD : _DISCARD + NUM_CARDS] = unpacked[:, 64 : 64 + NUM_CARDS]

    top = state.top_card.astype(np.intp)
    on_table = top != NO_CARD
    obs[games[on_table], _TOP + top[on_table]] = 1.0
    suit = state.ordered_suit.astype(np.intp)
    ordered = suit >= 0
    obs[games[ordered], _SUIT + suit[ordered]] = 1.0
    phase = state.phase.astype(np.intp)
    live = phase != DONE
    obs[games[live], _PHASE + phase[live]] = 1.0
    current = state.current_player.astype(np.intp)
    drawer = (phase == AFTER_DRAW) & (current == seat)
    obs[games[drawer], _DRAWN + state.drawn_card[drawer].astype(np.intp)] = 1.0
    acting = current != NOBODY
    obs[games[acting], _TO_ACT + (current[acting] - seat[acting]) % P] = 1.0

    obs[:, LAYOUT["pending"].start] = state.pending / CARD_SCALE
    obs[:, LAYOUT["stock_size"].start] = state.stock_size / CARD_SCALE

    target = float(state.tables.target)
    others = (seat[:, None] + np.arange(1, P)[None, :]) % P
    hand_sizes = np.bitwise_count(state.hand)
    n_others = P - 1
    obs[:, _OTHERS_HAND : _OTHERS_HAND + n_others] = (
        np.take_along_axis(hand_sizes, others, axis=1) / CARD_SCALE
    )
    obs[:, _OTHERS_TOTAL : _OTHERS_TOTAL + n_others] = (
        np.take_along_axis(state.totals, others, axis=1) / target
    )
    obs[:, _OTHERS_IN : _OTHERS_IN + n_others] = (
        state.in_match[:, None].astype(np.intp) >> others
    ) & 1
    dealer = state.dealer.astype(np.intp)
    obs[:, _OTHERS_DEALER : _OTHERS_DEALER + n_others] = others == dealer[:, None]
    obs[:, LAYOUT["own_total"].start] = state.totals[games, seat] / target
    obs[:, LAYOUT["own_dealer"].start] = seat == dealer
    obs[:, LAYOUT["num_players"].start] = P / MAX_PLAYERS
    return obs


class ObservationView:
    """Named, decoded views of a batch of observation vectors (for bots and tests).

    >>> view = ObservationView(obs, target=101)
    >>> view.hand        # (N, 36) bool
    >>> view.top_card    # (N,) int, -1 on an empty table
    """

    def __init__(self, obs: np.ndarray, target: int = 101):
        self.obs = np.atleast_2d(obs)
        self.target = target

    def field(self, name: str) -> np.ndarray:
        """The raw float slice of one field."""
        return self.obs[:, LAYOUT[name]]

    def _one_hot(self, name: str) -> np.ndarray:
        block = self.field(name)
        return np.where(block.any(axis=1), block.argmax(axis=1), -1)

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
        return np.rint(self.field("pending")[:, 0] * CARD_SCALE).astype(np.int64)

    @property
    def stock_size(self) -> np.ndarray:
        return np.rint(self.field("stock_size")[:, 0] * CARD_SCALE).astype(np.int64)

    @property
    def num_players(self) -> np.ndarray:
        return np.rint(self.field("num_players")[:, 0] * MAX_PLAYERS).astype(np.int64)

    @property
    def others_hand_size(self) -> np.ndarray:
        return np.rint(self.field("others_hand_size") * CARD_SCALE).astype(np.int64)

    @property
    def others_total(self) -> np.ndarray:
        return np.rint(self.field("others_total") * self.target).astype(np.int64)

    @property
    def others_in(self) -> np.ndarray:
        return self.field("others_in") > 0.5

    @property
    def own_total(self) -> np.ndarray:
        return np.rint(self.field("own_total")[:, 0] * self.target).astype(np.int64)
