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
of every rule set without the call, unchanged.

"Others" are the seats observer+1, observer+2, ... (mod players); entries for seats beyond
the player count are zero. Nothing hidden enters: the other hands and the stock order never
change the vector (``tests/test_observation.py``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from gymnasium import spaces

from .cards import NUM_ACTIONS, NUM_CARDS, NUM_SUITS, PHASE_AFTER_DRAW, PHASE_CALL, PHASE_PLAY
from .engine import State
from .rules import MAX_PLAYERS, Rules, load_rules

NUM_PHASES = 5
MAX_OTHERS = MAX_PLAYERS - 1
CARD_SCALE = float(NUM_CARDS)

# (name, size, kind): "bits" blocks are 0/1 flags, "onehot" blocks end in a "none" slot.
_FIELDS = (
    ("hand", NUM_CARDS, "bits"),
    ("discard", NUM_CARDS, "bits"),
    ("others_in", MAX_OTHERS, "bits"),
    ("others_dealer", MAX_OTHERS, "bits"),
    ("own_dealer", 1, "bits"),
    ("top_card", NUM_CARDS + 1, "onehot"),
    ("ordered_suit", NUM_SUITS + 1, "onehot"),
    ("phase", NUM_PHASES + 1, "onehot"),
    ("drawn_card", NUM_CARDS + 1, "onehot"),
    ("to_act", MAX_PLAYERS + 1, "onehot"),
    ("pending", 1, "scalar"),
    ("stock_size", 1, "scalar"),
    ("others_hand_size", MAX_OTHERS, "scalar"),
    ("others_total", MAX_OTHERS, "scalar"),
    ("own_total", 1, "scalar"),
    ("num_players", 1, "scalar"),
)


def _layout() -> dict[str, slice]:
    layout, start = {}, 0
    for name, size, _ in _FIELDS:
        layout[name] = slice(start, start + size)
        start += size
    return layout


LAYOUT: dict[str, slice] = _layout()
# Bumped whenever the layout changes, so that a policy trained on another layout is refused.
OBSERVATION_VERSION: int = 1
OBS_SIZE: int = LAYOUT["num_players"].stop


def obs_size(rules: Rules | str) -> int:
    """The observation size of a rule set: ``OBS_SIZE``, plus 1 with ``last_card_call``."""
    return OBS_SIZE + int(load_rules(rules).last_card_call)


def layout(rules: Rules | str) -> dict[str, slice]:
    """The slices of a rule set's observation: ``LAYOUT``, plus ``call`` (the last entry)
    with ``last_card_call``."""
    if not load_rules(rules).last_card_call:
        return dict(LAYOUT)
    return {**LAYOUT, "call": slice(OBS_SIZE, OBS_SIZE + 1)}


ONE_HOT_FIELDS = tuple(name for name, _, kind in _FIELDS if kind == "onehot")
NUM_FLAGS = LAYOUT["to_act"].stop  # the 0/1 entries, packed as bits while building
_WORDS = (NUM_FLAGS + 63) // 64
_NO_DRAWN = NUM_CARDS  # the "none" slot of drawn_card
_S_PENDING = LAYOUT["pending"].start - NUM_FLAGS
_S_STOCK = LAYOUT["stock_size"].start - NUM_FLAGS
_S_HANDS = LAYOUT["others_hand_size"].start - NUM_FLAGS
_S_TOTALS = LAYOUT["others_total"].start - NUM_FLAGS
_S_OWN_TOTAL = LAYOUT["own_total"].start - NUM_FLAGS
_S_PLAYERS = LAYOUT["num_players"].start - NUM_FLAGS
_U64 = np.uint64


def _field_words(name: str) -> np.ndarray:
    """(slots, words) uint64: the packed bits of each slot of a one-hot field."""
    start, stop = LAYOUT[name].start, LAYOUT[name].stop
    table = np.zeros((stop - start, _WORDS), dtype=_U64)
    for slot in range(stop - start):
        bit = start + slot
        table[slot, bit // 64] = _U64(1) << _U64(bit % 64)
    return table


# Combined tables, one lookup each: [top card * 5 + ordered suit] and [phase * 37 + drawn
# card]. No ordered suit (-1) is taken modulo 5 and NO_CARD (36) is the last slot, so both
# land on the "none" slots.
_TOP_SUIT_WORDS = (
    _field_words("top_card")[:, None, :] | _field_words("ordered_suit")[None, :, :]
).reshape(-1, _WORDS)
_PHASE_DRAWN_WORDS = (
    _field_words("phase")[:, None, :] | _field_words("drawn_card")[None, :, :]
).reshape(-1, _WORDS)
# PHASE_CALL (6, after DONE) shows as PLAY in the phase block; the ``call`` entry marks it.
assert _PHASE_DRAWN_WORDS.shape[0] == PHASE_CALL * (NUM_CARDS + 1)
_PHASE_DRAWN_WORDS = np.concatenate(
    [_PHASE_DRAWN_WORDS, _PHASE_DRAWN_WORDS[PHASE_PLAY * (NUM_CARDS + 1) :][: NUM_CARDS + 1]]
)
_SUITS_SLOTS = NUM_SUITS + 1
_DRAWN_SLOTS = NUM_CARDS + 1


@lru_cache(maxsize=8)
def _seat_words(players: int) -> np.ndarray:
    """[in_match bits, seat, dealer, current seat (-1 -> 6)] -> the packed bits of
    others_in, others_dealer, own_dealer and to_act, for a player count."""
    table = np.zeros((64, MAX_PLAYERS, MAX_PLAYERS, MAX_PLAYERS + 1, _WORDS), dtype=_U64)

    def put(entry: np.ndarray, name: str, slot: int) -> None:
        bit = LAYOUT[name].start + slot
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
                    put(entry, "to_act", (current - seat) % players if acting else MAX_PLAYERS)
    return table.reshape(-1, _WORDS)


@lru_cache(maxsize=8)
def _others(players: int) -> np.ndarray:
    """[seat] -> the other seats clockwise from it."""
    return (np.arange(players)[:, None] + np.arange(1, players)[None, :]) % players


@lru_cache(maxsize=16)
def _scalar_scale(target: int) -> np.ndarray:
    """The divisor of each scalar entry: 36 for card counts, the target for totals."""
    scale = np.ones(OBS_SIZE - NUM_FLAGS, dtype=np.float32)
    scale[_S_PENDING : _S_HANDS + MAX_OTHERS] = CARD_SCALE
    scale[_S_TOTALS:_S_PLAYERS] = target
    return scale


_SEAT_STRIDES = (
    MAX_PLAYERS * MAX_PLAYERS * (MAX_PLAYERS + 1),
    MAX_PLAYERS * (MAX_PLAYERS + 1),
    MAX_PLAYERS + 1,
)


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
    call = state.tables.call
    width = OBS_SIZE + 1 if call else OBS_SIZE
    obs = np.empty((B, width), dtype=np.float32) if out is None else out
    hands = rows(state.hand)
    discard_bits = rows(state.discard_bits)
    phase = rows(state.phase)
    local = np.arange(B)

    visible = (phase == PHASE_AFTER_DRAW) & (current == seat)  # the drawer sees its card
    drawn = np.where(visible, rows(state.drawn_card), _NO_DRAWN)
    top_suit = rows(state.top_card).astype(np.intp) * _SUITS_SLOTS + (
        rows(state.ordered_suit) % _SUITS_SLOTS
    )
    phase_drawn = phase.astype(np.intp) * _DRAWN_SLOTS + drawn
    seat_key = (
        rows(state.in_match).astype(np.intp) * _SEAT_STRIDES[0]
        + seat * _SEAT_STRIDES[1]
        + rows(state.dealer) * _SEAT_STRIDES[2]
        + current % (MAX_PLAYERS + 1)
    )
    # np.take gathers whole rows several times faster than fancy indexing does.
    words = np.take(_TOP_SUIT_WORDS, top_suit, axis=0)
    words |= np.take(_PHASE_DRAWN_WORDS, phase_drawn, axis=0)
    words |= np.take(_seat_words(P), seat_key, axis=0)
    own = local * P + seat  # flat indices of the observer's cells in (B, P) arrays
    words[:, 0] |= hands.reshape(-1)[own] | (discard_bits << _U64(NUM_CARDS))
    words[:, 1] |= discard_bits >> _U64(64 - NUM_CARDS)
    obs[:, :NUM_FLAGS] = np.unpackbits(
        words.view(np.uint8).reshape(B, 8 * _WORDS), axis=1, count=NUM_FLAGS, bitorder="little"
    )

    # The scalars go through a small contiguous block: one strided pass over ``obs``.
    scalars = np.zeros((B, OBS_SIZE - NUM_FLAGS), dtype=np.float32)
    totals = rows(state.totals)
    others = (local * P)[:, None] + _others(P)[seat]  # flat indices into (B, P) arrays
    scalars[:, _S_PENDING] = rows(state.pending)
    scalars[:, _S_STOCK] = rows(state.stock_size)
    scalars[:, _S_HANDS : _S_HANDS + P - 1] = np.bitwise_count(hands).reshape(-1)[others]
    scalars[:, _S_TOTALS : _S_TOTALS + P - 1] = totals.reshape(-1)[others]
    scalars[:, _S_OWN_TOTAL] = totals.reshape(-1)[own]
    scalars /= _scalar_scale(state.tables.target)  # one contiguous pass
    scalars[:, _S_PLAYERS] = P / MAX_PLAYERS
    if call:
        obs[:, NUM_FLAGS:OBS_SIZE] = scalars
        obs[:, OBS_SIZE] = phase == PHASE_CALL
    else:
        obs[:, NUM_FLAGS:] = scalars
    return obs


# The same tables as Python integers (all words of an entry in one), for one game at a
# time: the AEC env's batch of one, where a numpy call costs more than the work it does.
def _as_ints(words: np.ndarray) -> list[int]:
    return [sum(int(w) << (64 * i) for i, w in enumerate(row)) for row in words]


_TOP_SUIT_INTS = _as_ints(_TOP_SUIT_WORDS)
_PHASE_DRAWN_INTS = _as_ints(_PHASE_DRAWN_WORDS)
_FLAG_BYTES = 8 * _WORDS


@lru_cache(maxsize=8)
def _seat_ints(players: int) -> list[int]:
    return _as_ints(_seat_words(players))


def observe_one(state: State, seat: int, game: int = 0) -> np.ndarray:
    """(obs_size,) float32: ``observe(state, seat)[game]``, built from Python scalars.

    The same encoding as :func:`observe` (tests check they agree), several times faster
    for a single game.
    """
    P = state.players
    if not 0 <= seat < P:
        raise ValueError(f"seat must be in 0..{P - 1}, got {seat}")
    current = int(state.current_player[game])
    phase = int(state.phase[game])
    visible = phase == PHASE_AFTER_DRAW and current == seat
    drawn = int(state.drawn_card[game]) if visible else _NO_DRAWN
    top_suit = _TOP_SUIT_INTS[
        int(state.top_card[game]) * _SUITS_SLOTS + int(state.ordered_suit[game]) % _SUITS_SLOTS
    ]
    phase_drawn = _PHASE_DRAWN_INTS[phase * _DRAWN_SLOTS + drawn]
    seat_bits = _seat_ints(P)[
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
        | int(state.discard_bits[game]) << NUM_CARDS
    )
    packed = np.frombuffer(flags.to_bytes(_FLAG_BYTES, "little"), dtype=np.uint8)
    call = state.tables.call
    obs = np.empty(OBS_SIZE + 1 if call else OBS_SIZE, dtype=np.float32)
    obs[:NUM_FLAGS] = np.unpackbits(packed, count=NUM_FLAGS, bitorder="little")
    totals = state.totals[game].tolist()
    others = [(seat + k) % P for k in range(1, P)]
    padding = [0.0] * (MAX_OTHERS - (P - 1))
    target = state.tables.target
    obs[NUM_FLAGS:OBS_SIZE] = [
        int(state.pending[game]) / CARD_SCALE,
        int(state.stock_size[game]) / CARD_SCALE,
        *[hands[other].bit_count() / CARD_SCALE for other in others],
        *padding,
        *[totals[other] / target for other in others],
        *padding,
        totals[seat] / target,
        P / MAX_PLAYERS,
    ]
    if call:
        obs[OBS_SIZE] = phase == PHASE_CALL
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


def observation_space(rules: Rules | str | None = None) -> spaces.Dict:
    """The observation space of every seat: the observation vector (``Box``) and the
    legal-action mask (the PettingZoo env's per-agent space; the Gymnasium envs use the
    ``"observation"`` entry). Sized for ``rules`` (the classic sizes without it)."""
    rules = None if rules is None else load_rules(rules)
    size = OBS_SIZE if rules is None else obs_size(rules)
    actions = NUM_ACTIONS if rules is None else rules.num_actions
    low = np.zeros(size, dtype=np.float32)
    high = np.ones(size, dtype=np.float32)
    high[NUM_FLAGS:OBS_SIZE] = np.inf  # sizes and totals, scaled but unbounded
    for name in ("others_total", "own_total"):
        low[LAYOUT[name]] = -np.inf  # finish bonuses can take a total below zero
    return spaces.Dict(
        {
            "observation": spaces.Box(low=low, high=high, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(actions,), dtype=np.int8),
        }
    )
