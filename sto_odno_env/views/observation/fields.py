"""The observation's layout and its lookup tables: the fields of a deck's observation
(``LAYOUT``, :func:`layout`, :func:`obs_size`, ``OBSERVATION_VERSION``), and the packed-bit
tables the builders read (one :class:`_Encoding` per deck, cached)."""

from __future__ import annotations

import numpy as np

from ...game.cards import (
    DECK36,
    NUM_CARDS,
    NUM_SUITS,
    PHASE_CALL,
    PHASE_PLAY,
    Deck,
    deck_of,
)
from ...game.rules import MAX_PLAYERS, Rules, load_rules

NUM_PHASES = 5
MAX_OTHERS = MAX_PLAYERS - 1
CARD_SCALE = float(NUM_CARDS)


def _fields(cards: int, suits: int = NUM_SUITS) -> tuple[tuple[str, int, str], ...]:
    """(name, size, kind) of a deck of ``cards`` cards in ``suits`` suits: "bits" blocks
    are 0/1 flags, "onehot" blocks end in a "none" slot."""
    return (
        ("hand", cards, "bits"),
        ("discard", cards, "bits"),
        ("others_in", MAX_OTHERS, "bits"),
        ("others_dealer", MAX_OTHERS, "bits"),
        ("own_dealer", 1, "bits"),
        ("top_card", cards + 1, "onehot"),
        ("ordered_suit", suits + 1, "onehot"),
        ("phase", NUM_PHASES + 1, "onehot"),
        ("drawn_card", cards + 1, "onehot"),
        ("to_act", MAX_PLAYERS + 1, "onehot"),
        ("pending", 1, "scalar"),
        ("stock_size", 1, "scalar"),
        ("others_hand_size", MAX_OTHERS, "scalar"),
        ("others_total", MAX_OTHERS, "scalar"),
        ("own_total", 1, "scalar"),
        ("num_players", 1, "scalar"),
    )


_FIELDS = _fields(NUM_CARDS)


def _layout(cards: int = NUM_CARDS, suits: int = NUM_SUITS) -> dict[str, slice]:
    layout, start = {}, 0
    for name, size, _ in _fields(cards, suits):
        layout[name] = slice(start, start + size)
        start += size
    return layout


LAYOUT: dict[str, slice] = _layout()
# Bumped whenever the layout changes, so that a policy trained on another layout is refused.
OBSERVATION_VERSION: int = 1
OBS_SIZE: int = LAYOUT["num_players"].stop


def obs_size(rules: Rules | str) -> int:
    """The observation size of a rule set: ``OBS_SIZE`` (189) for 36 cards, 253 for 52
    (``deck: 52``), plus 1 with ``last_card_call``."""
    rules = load_rules(rules)
    return _encoding(rules.deck).size + int(rules.last_card_call)


def layout(rules: Rules | str) -> dict[str, slice]:
    """The slices of a rule set's observation: ``LAYOUT`` for 36 cards (card blocks of 52
    and 53 entries with ``deck: 52``), plus ``call`` (the last entry) with
    ``last_card_call``."""
    rules = load_rules(rules)
    encoding = _encoding(rules.deck)
    if not rules.last_card_call:
        return dict(encoding.layout)
    return {**encoding.layout, "call": slice(encoding.size, encoding.size + 1)}


ONE_HOT_FIELDS = tuple(name for name, _, kind in _FIELDS if kind == "onehot")
_U64 = np.uint64
_SEAT_STRIDES = (
    MAX_PLAYERS * MAX_PLAYERS * (MAX_PLAYERS + 1),
    MAX_PLAYERS * (MAX_PLAYERS + 1),
    MAX_PLAYERS + 1,
)


# The same tables as Python integers (all words of an entry in one), for one game at a
# time: the AEC env's batch of one, where a numpy call costs more than the work it does.
def _as_ints(words: np.ndarray) -> list[int]:
    return [sum(int(w) << (64 * i) for i, w in enumerate(row)) for row in words]


class _Encoding:
    """The lookup tables of the observation of one deck (36 or 52 cards, or a small deck).

    The 0/1 entries are packed as bits in ``words`` uint64 words while building (3 for 36
    cards, 4 for 52); the scalars follow them.
    """

    def __init__(self, deck: Deck):
        self.cards = cards = deck.cards
        self.layout = _layout(cards, deck.suits)
        self.size = self.layout["num_players"].stop
        self.num_flags = flags = self.layout["to_act"].stop
        self.words = (flags + 63) // 64
        self.card_scale = float(cards)
        self.no_drawn = cards  # the "none" slot of drawn_card
        self.s_pending = self.layout["pending"].start - flags
        self.s_stock = self.layout["stock_size"].start - flags
        self.s_hands = self.layout["others_hand_size"].start - flags
        self.s_totals = self.layout["others_total"].start - flags
        self.s_own_total = self.layout["own_total"].start - flags
        self.s_players = self.layout["num_players"].start - flags
        self.suits_slots = deck.suits + 1
        self.drawn_slots = cards + 1
        # Combined tables, one lookup each: [top card * 5 + ordered suit] and [phase *
        # (N + 1) + drawn card]. No ordered suit (-1) is taken modulo 5 and no card (N) is
        # the last slot, so both land on the "none" slots.
        self.top_suit_words = (
            self._field_words("top_card")[:, None, :]
            | self._field_words("ordered_suit")[None, :, :]
        ).reshape(-1, self.words)
        phase_drawn = (
            self._field_words("phase")[:, None, :] | self._field_words("drawn_card")[None, :, :]
        ).reshape(-1, self.words)
        # PHASE_CALL (6, after DONE) shows as PLAY in the phase block; ``call`` marks it.
        assert phase_drawn.shape[0] == PHASE_CALL * (cards + 1)
        self.phase_drawn_words = np.concatenate(
            [phase_drawn, phase_drawn[PHASE_PLAY * (cards + 1) :][: cards + 1]]
        )
        self.top_suit_ints = _as_ints(self.top_suit_words)
        self.phase_drawn_ints = _as_ints(self.phase_drawn_words)
        self.flag_bytes = 8 * self.words
        self._seat_words: dict[int, np.ndarray] = {}
        self._seat_ints: dict[int, list[int]] = {}
        self._scales: dict[int, np.ndarray] = {}

    def _field_words(self, name: str) -> np.ndarray:
        """(slots, words) uint64: the packed bits of each slot of a one-hot field."""
        start, stop = self.layout[name].start, self.layout[name].stop
        table = np.zeros((stop - start, self.words), dtype=_U64)
        for slot in range(stop - start):
            bit = start + slot
            table[slot, bit // 64] = _U64(1) << _U64(bit % 64)
        return table

    def seat_words(self, players: int) -> np.ndarray:
        """[in_match bits, seat, dealer, current seat (-1 -> 6)] -> the packed bits of
        others_in, others_dealer, own_dealer and to_act, for a player count."""
        table = self._seat_words.get(players)
        if table is None:
            table = self._seat_words[players] = self._build_seat_words(players)
        return table

    def seat_ints(self, players: int) -> list[int]:
        ints = self._seat_ints.get(players)
        if ints is None:
            ints = self._seat_ints[players] = _as_ints(self.seat_words(players))
        return ints

    def _build_seat_words(self, players: int) -> np.ndarray:
        words = self.words
        table = np.zeros((64, MAX_PLAYERS, MAX_PLAYERS, MAX_PLAYERS + 1, words), dtype=_U64)

        def put(entry: np.ndarray, name: str, slot: int) -> None:
            bit = self.layout[name].start + slot
            entry[bit // 64] |= _U64(1) << _U64(bit % 64)

        for in_bits in range(1 << players):
            for seat in range(players):
                for dealer in range(players):
                    for current in range(MAX_PLAYERS + 1):
                        entry = table[in_bits, seat, dealer, current]
                        for k in range(1, players):
                            other = (seat + k) % players
                            if in_bits >> other & 1:
                                put(entry, "others_in", k - 1)
                            if other == dealer:
                                put(entry, "others_dealer", k - 1)
                        if dealer == seat:
                            put(entry, "own_dealer", 0)
                        acting = current < players
                        slot = (current - seat) % players if acting else MAX_PLAYERS
                        put(entry, "to_act", slot)
        return table.reshape(-1, words)

    def scalar_scale(self, target: int) -> np.ndarray:
        """The divisor of each scalar entry: N (36 or 52) for card counts, the target for
        totals."""
        scale = self._scales.get(target)
        if scale is None:
            scale = np.ones(self.size - self.num_flags, dtype=np.float32)
            scale[self.s_pending : self.s_hands + MAX_OTHERS] = self.card_scale
            scale[self.s_totals : self.s_players] = target
            self._scales[target] = scale
        return scale


_ENCODINGS: dict[Deck, _Encoding] = {}


def _encoding(deck: Deck | int) -> _Encoding:
    """The (cached) encoding of a deck (or a full deck's size)."""
    deck = deck_of(deck)
    encoding = _ENCODINGS.get(deck)
    if encoding is None:
        encoding = _ENCODINGS[deck] = _Encoding(deck)
    return encoding


_E36 = _encoding(DECK36)
NUM_FLAGS = _E36.num_flags  # the 0/1 entries of a 36-card observation
