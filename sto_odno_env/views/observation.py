"""What a seat may know, as a float32 vector from its own point of view.

One layout for every rule set and player count (other seats are padded to five), so a
policy can move between 2 and 6 players. ``LAYOUT`` maps each name to its slice. The first
175 entries are 0/1 and every one-hot block has a last slot for "none", so exactly one
entry of it is set:

================  ====  ===============================================================
name              size  meaning
================  ====  ===============================================================
hand              36    1 for each card the observer holds
discard           36    1 for each card in the discard pile (public), top card included
others_in         5     1 while the seat that many places after the observer is in
others_dealer     5     1 for the dealer (the leader under leader_plays) among them
own_dealer        1     1 if the observer is the dealer
top_card          37    one-hot top card; last slot: empty table
ordered_suit      5     one-hot suit ordered by the last queen; last slot: none
phase             6     one-hot PLAY, AFTER_DRAW, COVER, ORDER, RESPOND; last: match over
drawn_card        37    one-hot card just drawn, only for the drawer in AFTER_DRAW; last: none
to_act            7     one-hot seat to act, counted clockwise from the observer (0 = self);
                        last slot: nobody (match over)
pending           1     accumulated stacked penalty / 36
stock_size        1     cards in the stock / 36
others_hand_size  5     hand sizes / 36 of the seats after the observer, clockwise
others_total      5     their totals / target
own_total         1     own total / target
num_players       1     players / 6
================  ====  ===============================================================

A rule set with ``last_card_call`` (docs/rules.md §12) appends one entry, ``call`` (1 in its
player's CALL decision, where the phase block shows PLAY): :func:`obs_size` and
:func:`layout` give the size and slices of a rule set; ``OBS_SIZE`` and ``LAYOUT`` are those
of every 36-card rule set without the call, unchanged. With ``deck: 52`` (§12) the card
blocks follow the deck: hand and discard have 52 entries, top_card and drawn_card 53, and
the card counts (pending, stock_size, others_hand_size) are divided by 52: 253 entries.

"Others" are the seats observer+1, observer+2, ... (mod players); entries for seats beyond
the player count are zero. Nothing hidden enters: the other hands and the stock order never
change the vector (``tests/test_observation.py``).

**Bounds.** :func:`observation_space` bounds every entry from the rule set: the 0/1 entries
in [0, 1]; card counts by the deck (at most 1); ``pending`` by :func:`pending_bound`; the
totals by :func:`total_bounds` over the target. Upwards a total is bounded (the target plus
one round's most points); downwards the rules set no floor wherever a card can score below
zero (a finish bonus can be earned round after round), so the lower bound is the lowest
total the engine holds (int32) over the target. The values are already scaled: a min-max
normaliser over these bounds (SuperSuit's ``normalize_obs_v0``) would flatten the totals.

**Global state.** :func:`global_state` is the table from no seat's point of view, every hand
visible (PettingZoo's ``state()``, what a centralised critic reads): :func:`state_layout`,
:func:`state_size` (371 entries for 36 cards), :func:`state_space`, ``STATE_VERSION``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ..game.cards import (
    DECK36,
    NUM_CARDS,
    NUM_SUITS,
    PHASE_AFTER_DRAW,
    PHASE_CALL,
    PHASE_PLAY,
    Deck,
    deck_of,
)
from ..game.engine import State
from ..game.rules import MAX_PLAYERS, Rules, load_rules
from ..game.tables import compile_rules

if TYPE_CHECKING:
    from gymnasium import spaces

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


@lru_cache(maxsize=8)
def _others(players: int) -> np.ndarray:
    """[seat] -> the other seats clockwise from it."""
    return (np.arange(players)[:, None] + np.arange(1, players)[None, :]) % players


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


def observe(
    state: State,
    seat: int | np.ndarray | None = None,
    out: np.ndarray | None = None,
    games: np.ndarray | None = None,
) -> np.ndarray:
    """(B, OBS_SIZE) float32 observations of ``seat`` in every game (``obs_size(rules)``
    wide: one more entry with ``last_card_call``).

    ``seat`` is one seat for all games, a (B,) array, or None for the player to act
    (games whose match is over are then observed from seat 0). ``games`` (indices)
    observes only those games, giving (len(games), OBS_SIZE); ``seat`` then has one entry
    per chosen game. ``out`` reuses a buffer. The 0/1 entries are OR-ed together as
    packed bits from lookup tables and unpacked once, which keeps this cheap at any batch.
    """
    P = state.players

    def rows(array: np.ndarray) -> np.ndarray:
        return array if games is None else array[games]

    current = rows(state.current_player)
    B = current.shape[0]
    if seat is None:
        seat = np.maximum(current, 0).astype(np.intp)
    else:
        seat = np.broadcast_to(np.asarray(seat), (B,)).astype(np.intp)
        if seat.size and (seat.min() < 0 or seat.max() >= P):
            raise ValueError(f"seat must be in 0..{P - 1}, got {np.unique(seat).tolist()}")
    tables = state.tables
    enc = _ENCODINGS.get(tables.deck) or _encoding(tables.deck)
    size, flags, cards = enc.size, enc.num_flags, enc.cards
    call = tables.call
    width = size + 1 if call else size
    obs = np.empty((B, width), dtype=np.float32) if out is None else out
    hands = rows(state.hand)
    discard_bits = rows(state.discard_bits)
    phase = rows(state.phase)
    local = np.arange(B)

    visible = (phase == PHASE_AFTER_DRAW) & (current == seat)  # the drawer sees its card
    drawn = np.where(visible, rows(state.drawn_card), enc.no_drawn)
    top_suit = rows(state.top_card).astype(np.intp) * enc.suits_slots + (
        rows(state.ordered_suit) % enc.suits_slots
    )
    phase_drawn = phase.astype(np.intp) * enc.drawn_slots + drawn
    seat_key = (
        rows(state.in_match).astype(np.intp) * _SEAT_STRIDES[0]
        + seat * _SEAT_STRIDES[1]
        + rows(state.dealer) * _SEAT_STRIDES[2]
        + current % (MAX_PLAYERS + 1)
    )
    # np.take gathers whole rows several times faster than fancy indexing does.
    words = np.take(enc.top_suit_words, top_suit, axis=0)
    words |= np.take(enc.phase_drawn_words, phase_drawn, axis=0)
    words |= np.take(enc.seat_words(P), seat_key, axis=0)
    own = local * P + seat  # flat indices of the observer's cells in (B, P) arrays
    # hand: bits 0..N-1, discard: bits N..2N-1 (across words 0 and 1)
    words[:, 0] |= hands.reshape(-1)[own] | (discard_bits << _U64(cards))
    if enc.words > 1:  # a small deck's flags all fit the first word
        words[:, 1] |= discard_bits >> _U64(64 - cards)
    obs[:, :flags] = np.unpackbits(
        words.view(np.uint8).reshape(B, enc.flag_bytes), axis=1, count=flags, bitorder="little"
    )

    # The scalars go through a small contiguous block: one strided pass over ``obs``.
    scalars = np.zeros((B, size - flags), dtype=np.float32)
    totals = rows(state.totals)
    others = (local * P)[:, None] + _others(P)[seat]  # flat indices into (B, P) arrays
    s_hands, s_totals = enc.s_hands, enc.s_totals
    scalars[:, enc.s_pending] = rows(state.pending)
    scalars[:, enc.s_stock] = rows(state.stock_size)
    scalars[:, s_hands : s_hands + P - 1] = np.bitwise_count(hands).reshape(-1)[others]
    scalars[:, s_totals : s_totals + P - 1] = totals.reshape(-1)[others]
    scalars[:, enc.s_own_total] = totals.reshape(-1)[own]
    scalars /= enc.scalar_scale(tables.target)  # one contiguous pass
    scalars[:, enc.s_players] = P / MAX_PLAYERS
    if call:
        obs[:, flags:size] = scalars
        obs[:, size] = phase == PHASE_CALL
    else:
        obs[:, flags:] = scalars
    return obs


def observe_one(state: State, seat: int, game: int = 0) -> np.ndarray:
    """(obs_size,) float32: ``observe(state, seat)[game]``, built from Python scalars.

    The same encoding as :func:`observe` (tests check they agree), several times faster
    for a single game.
    """
    P = state.players
    if not 0 <= seat < P:
        raise ValueError(f"seat must be in 0..{P - 1}, got {seat}")
    tables = state.tables
    enc = _ENCODINGS.get(tables.deck) or _encoding(tables.deck)
    current = int(state.current_player[game])
    phase = int(state.phase[game])
    visible = phase == PHASE_AFTER_DRAW and current == seat
    drawn = int(state.drawn_card[game]) if visible else enc.no_drawn
    slots = enc.suits_slots
    top_suit = enc.top_suit_ints[
        int(state.top_card[game]) * slots + int(state.ordered_suit[game]) % slots
    ]
    phase_drawn = enc.phase_drawn_ints[phase * enc.drawn_slots + drawn]
    seat_bits = enc.seat_ints(P)[
        int(state.in_match[game]) * _SEAT_STRIDES[0]
        + seat * _SEAT_STRIDES[1]
        + int(state.dealer[game]) * _SEAT_STRIDES[2]
        + current % (MAX_PLAYERS + 1)
    ]
    hands = state.hand[game].tolist()
    flags = (
        top_suit
        | phase_drawn
        | seat_bits
        | hands[seat]
        | int(state.discard_bits[game]) << enc.cards
    )
    packed = np.frombuffer(flags.to_bytes(enc.flag_bytes, "little"), dtype=np.uint8)
    call = tables.call
    size, num_flags, scale = enc.size, enc.num_flags, enc.card_scale
    obs = np.empty(size + 1 if call else size, dtype=np.float32)
    obs[:num_flags] = np.unpackbits(packed, count=num_flags, bitorder="little")
    totals = state.totals[game].tolist()
    others = [(seat + k) % P for k in range(1, P)]
    padding = [0.0] * (MAX_OTHERS - (P - 1))
    target = tables.target
    obs[num_flags:size] = [
        int(state.pending[game]) / scale,
        int(state.stock_size[game]) / scale,
        *[hands[other].bit_count() / scale for other in others],
        *padding,
        *[totals[other] / target for other in others],
        *padding,
        totals[seat] / target,
        P / MAX_PLAYERS,
    ]
    if call:
        obs[size] = phase == PHASE_CALL
    return obs


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


# --- bounds of the scalar entries ------------------------------------------------------------

_INT16, _INT32 = np.iinfo(np.int16), np.iinfo(np.int32)


def total_bounds(rules: Rules | str) -> tuple[int, int]:
    """The lowest and the highest total (points, not scaled) a seat can have under ``rules``
    (docs/rules.md §7, §12), the bounds of the ``others_total`` and ``own_total`` entries
    (divided by the target).

    Highest: a seat still in has at most ``target`` before a round, and one round adds at
    most every card of the deck at its highest points (or its bonus, under
    ``leftover_bonus``) times the largest multiplier, or the largest positive finish bonus
    (under ``bonus_combo`` once per decision of the round). Lowest: 0 when no card scores
    below zero; otherwise the rules set no floor (a finish bonus can be earned round after
    round, with the others never going out), so it is the lowest total the engine holds
    (its totals are int32).
    """
    tables = compile_rules(load_rules(rules))
    cards, target = tables.deck.cards, tables.target
    bonus = tables.bonus_points[:cards].astype(np.int64)
    per_card = np.maximum(tables.points.astype(np.int64), 0)
    if tables.leftover:  # subtract / single_adds score a bonus card by its bonus
        per_card = np.maximum(per_card, np.where(tables.bonus_card[:cards], np.abs(bonus), 0))
    hand = int(per_card.sum())
    multiplier = int(tables.bonus_multiplier.max())
    finish = max(0, int(bonus.max()))
    if tables.bonus_combo:  # one run entry per play; at most every decision plus the opening
        finish *= tables.max_turns + 1
    if tables.scope_total:
        high = max((target + hand) * multiplier, target + finish)
    else:
        high = target + max(hand * multiplier, finish)
    negative = int(tables.points_low.min()) < 0 or int(bonus.min()) < 0
    return (int(_INT32.min) if negative else 0), min(high, int(_INT32.max))


def pending_bound(rules: Rules | str) -> int:
    """The largest stacked penalty (cards, not scaled) under ``rules``: 0 without
    ``stacking``; with it every penalty card of the deck played into one chain, or, with
    ``last_card_call`` too (whose penalty draws can reshuffle a chain's cards back into
    play), the engine's int16 counter."""
    rules = load_rules(rules)
    tables = compile_rules(rules)
    if not tables.stacking:
        return 0
    if tables.call:
        return int(_INT16.max)
    return int(tables.draw[: tables.deck.cards].astype(np.int64).sum())


def _scalar_bounds(rules: Rules, hands: int, totals: int) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of a scalar block laid out as ``pending``, ``stock_size``, ``hands`` hand
    sizes, ``totals`` totals and ``num_players`` (the observation's and the state's). Hand
    sizes and the stock never exceed the deck; players / 6 is at most 1."""
    low_total, high_total = total_bounds(rules)
    target = rules.target
    # An upper bound of 0 (no stacking) would equal the lower one, which Gymnasium flags;
    # any positive bound holds, so one card's worth.
    pending = max(pending_bound(rules), 1) / rules.deck.cards
    low = [0.0, 0.0, *[0.0] * hands, *[low_total / target] * totals, 0.0]
    high = [pending, 1.0, *[1.0] * hands, *[high_total / target] * totals, 1.0]
    return np.array(low, dtype=np.float32), np.array(high, dtype=np.float32)


def observation_space(rules: Rules | str | None = None) -> spaces.Dict:
    """The observation space of every seat: the observation vector (``Box``) and the
    legal-action mask (the PettingZoo env's per-agent space; the Gymnasium envs use the
    ``"observation"`` entry). Sized and bounded for ``rules`` (the classic preset without
    it): 0/1 entries in [0, 1], the scalars within :func:`total_bounds`,
    :func:`pending_bound` and the deck, every bound finite."""
    from gymnasium import spaces  # for spaces only

    rules = load_rules("classic" if rules is None else rules)
    enc = _encoding(rules.deck)
    low = np.zeros(obs_size(rules), dtype=np.float32)
    high = np.ones(obs_size(rules), dtype=np.float32)
    # others_total and own_total are adjacent: MAX_OTHERS + 1 totals in a row
    low[enc.num_flags : enc.size], high[enc.num_flags : enc.size] = _scalar_bounds(
        rules, hands=MAX_OTHERS, totals=MAX_OTHERS + 1
    )
    return spaces.Dict(
        {
            "observation": spaces.Box(low=low, high=high, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(rules.num_actions,), dtype=np.int8),
        }
    )


# --- the global state (every hand visible) -------------------------------------------------

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
    one_hot("ordered_suit", rows(state.ordered_suit).astype(np.intp) % (tables.deck.suits + 1))
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
