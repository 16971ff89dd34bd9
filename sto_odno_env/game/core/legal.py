"""Legal actions (docs/rules.md §2, §4, §5, §6): computing them, checking actions, sampling.

The legal actions of the player to act are a bit mask per game (bit ``a`` set when
action ``a`` is legal), looked up in the rule set's tables (:mod:`sto_odno_env.game.tables`).
Every check of an action against them, and every message about an illegal one, is here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...tools.errors import StoOdnoError
from ..cards import PHASE_NAMES, Deck, action_name, deck_of
from .bits import U64_0, U64_1, all_set, any_set, cells
from .state import DONE, NO_SUIT, State


class IllegalActionError(StoOdnoError):
    """An action that is not legal in the game's current decision."""


def check_actions(
    state: State, actions: np.ndarray | Sequence[int], games: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """The live games among ``games`` (all by default) and their actions, as int64.

    Raises ValueError for a wrong shape and :class:`IllegalActionError` for an action that
    is not an integer or not legal, before anything changes. Games whose match is over are
    left out (their actions are ignored).
    """
    actions = np.asarray(actions)
    expected = state.phase.shape if games is None else (len(games),)
    if actions.shape != expected:
        raise ValueError(f"actions must have shape {expected}, got {actions.shape}")
    if actions.dtype.kind not in "iu":
        raise IllegalActionError(f"actions must be integers, got dtype {actions.dtype}")
    if games is None:
        live = (state.phase != DONE).nonzero()[0]
        if live.size == actions.size:  # every game is live (OpenSpiel's one): no gathers
            chosen, legal_bits = actions.astype(np.int64), state.legal_bits
        else:
            chosen, legal_bits = actions[live].astype(np.int64), state.legal_bits[live]
    else:
        games = np.asarray(games, dtype=np.intp)
        live_rows = (state.phase[games] != DONE).nonzero()[0]
        live = games[live_rows]
        chosen, legal_bits = actions[live_rows].astype(np.int64), state.legal_bits[live]
    if live.size:
        legal = _legal_flags(legal_bits, chosen)
        if not all_set(legal):
            bad = int((legal == 0).nonzero()[0][0])
            raise IllegalActionError(illegal_message(state, int(live[bad]), int(chosen[bad])))
    return live, chosen


def _legal_flags(legal_bits: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """uint64 1 where an (int64) action's bit is set in its mask, else 0."""
    # A negative id reads as a huge unsigned one; numpy's shifts by 64 or more give 0, so
    # every id outside the mask is illegal without clamping it first.
    return (legal_bits >> actions.view(np.uint64)) & U64_1


def is_legal(legal_bits: np.ndarray, actions: np.ndarray | Sequence[int]) -> np.ndarray:
    """(N,) bool: whether each integer action is legal under its game's mask of legal
    actions (bit ``a`` for action ``a``; ids outside the mask never are). For callers that
    hold only the masks."""
    bits = np.asarray(legal_bits, dtype=np.uint64)
    return _legal_flags(bits, np.asarray(actions, dtype=np.int64)) != U64_0


def illegal_bits_message(
    legal_bits: int,
    action: object,
    *,
    game: int | None = None,
    player: int | None = None,
    phase: int | None = None,
    deck: Deck | int,
) -> str:
    """The message of an illegal ``action``: the action, then where it was given (game,
    player, phase, each when known) and the legal actions of the mask, named as action ids
    of ``deck`` (the rule set's :class:`~sto_odno_env.game.cards.Deck` or its size)."""
    deck = deck if isinstance(deck, Deck) else deck_of(deck)
    if isinstance(action, int | np.integer) and 0 <= action <= deck.call:
        name = action_name(int(action), deck)
    else:
        name = "not an action id"
    parts = [f"illegal action {action} ({name})"]
    if game is not None:
        parts.append(f"in game {game}")
    if player is not None:
        parts.append(f"for player {player}")
    if phase is not None:
        parts.append(f"in phase {PHASE_NAMES[phase]}")
    legal = [
        f"{a} ({action_name(a, deck)})" for a in range(deck.call + 1) if int(legal_bits) >> a & 1
    ]
    return f"{' '.join(parts)}; legal actions: {', '.join(legal)}"


def illegal_message(state: State, game: int, action: object) -> str:
    """The message of an illegal ``action`` in ``game``: the player, phase and legal actions."""
    return illegal_bits_message(
        int(state.legal_bits[game]),
        action,
        game=game,
        player=int(state.current_player[game]),
        phase=int(state.phase[game]),
        deck=state.tables.deck,
    )


def playable(state: State, games: np.ndarray) -> np.ndarray:
    """Cards playable now onto each game's top card (docs/rules.md §2)."""
    tables = state.tables
    return tables.playable[state.top_card[games], state.ordered_suit[games]]


def legal_bits(state: State, games: np.ndarray) -> np.ndarray:
    """Bit masks of the legal actions of the player to act (docs/rules.md §4, §5, §6)."""
    tables = state.tables
    # 1-D lookups cost a fraction of multi-dimensional indexing; take() converts the int8
    # fields for less than astype and arithmetic.
    situation = tables.phase_rows.take(state.phase[games]) + state.top_card[games]
    hands, at = cells(state.hand, games, state.current_player[games])
    # Most decisions have no ordered suit (the first block of situations) and no drawn
    # card (outside AFTER_DRAW): while no game has one, their lookups are skipped.
    ordered = state.ordered_suit[games]
    if any_set(ordered != NO_SUIT):
        situation_cards = tables.legal_by_situation.take(tables.suit_rows.take(ordered) + situation)
    else:
        situation_cards = tables.legal_by_situation.take(situation)
    cards = hands[at] & situation_cards
    drawn = state.drawn_card[games]
    if not all_set(drawn == tables.no_card_id):
        cards = cards & tables.drawn_filter.take(drawn)
    # The non-card actions: one lookup by the situation, whether a card is legal and
    # whether one can be drawn: always when the rules steal or every stock holds a card,
    # else where the stock holds one or the pile can be reshuffled.
    has_card = cards.astype(bool)
    stock = state.stock_size[games]
    if tables.steal or all_set(stock):
        key = situation + tables.card_rows[1].take(has_card)
    else:
        key = situation + tables.card_rows[0].take(has_card)
        key = key + tables.can_draw_rows.take(stock + stock + state.discard_size[games])
    return cards | tables.extra_by_situation.take(key)


def update_legal(state: State, games: np.ndarray) -> None:
    """Recompute ``state.legal_bits`` of the live games among ``games``."""
    live = games[state.phase[games] != DONE]
    state.legal_bits[live] = legal_bits(state, live)


# --- sampling -------------------------------------------------------------------------------


def _select_table(width: int) -> np.ndarray:
    """[word * width + k] -> the k-th set bit of every ``width``-bit word (int8)."""
    words = np.arange(1 << width, dtype=np.uint32)
    bits = (words[:, None] >> np.arange(width, dtype=np.uint32)[None, :]) & 1
    select = np.zeros((1 << width, width), dtype=np.int8)
    rank = np.cumsum(bits, axis=1) - 1
    word_index, position = np.nonzero(bits)
    select[word_index, rank[word_index, position]] = position
    return select.reshape(-1)


# Actions are 42 bits (43 with the last-card call): three 14-bit chunks, the popcounts of
# the lower two say which chunk holds the k-th legal action. A table gives the k-th set bit
# of a 15-bit word: the word read at a chunk's start has its k-th set bit inside the chunk
# (k is below the chunk's count), and the top chunk's word holds bits 28..42.
_CHUNK = 14
_CHUNK_MASK = np.uint64((1 << _CHUNK) - 1)
_TWO_CHUNKS_MASK = np.uint64((1 << (2 * _CHUNK)) - 1)
_WORD = _CHUNK + 1
_WORD_MASK = np.uint64((1 << _WORD) - 1)
_WORD_SELECT = _select_table(_WORD)


_FEW_GAMES = 4
# Masks above 43 bits (the 52-card deck: 58 actions, 59 with the call) take four 16-bit
# chunks and a 16-bit select table, built on first use.
_NARROW_LIMIT = np.uint64(1 << (3 * _CHUNK + 1))
_WIDE = 16
_WIDE_SELECT: list[np.ndarray] = []


def _wide_select() -> np.ndarray:
    if not _WIDE_SELECT:
        _WIDE_SELECT.append(_select_table(_WIDE))
    return _WIDE_SELECT[0]


def _kth_bit(mask: int, k: int) -> int:
    """The index of the k-th (from 0) set bit of a non-negative integer."""
    for _ in range(k):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def sample_actions(legal_bits: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per game, from action bit masks (up to 64 bits: 42
    or 43 for 36 cards, 58 or 59 for 52) and uniforms in [0, 1).

    Picks the k-th legal action, k = floor(u * count): popcounts find the 14-bit chunk that
    holds it and a table its bit in the chunk, with no (B, actions) array (16-bit chunks
    where a mask has bits above 42). Games with no legal action get 0.
    """
    bits = np.asarray(legal_bits, dtype=np.uint64)
    if bits.size <= _FEW_GAMES:  # a handful of games: plain integers beat a dozen array calls
        return np.array(
            [
                _kth_bit(mask, int(u * mask.bit_count())) if mask else 0
                for mask, u in zip(bits.tolist(), np.asarray(uniform).tolist(), strict=True)
            ],
            dtype=np.int64,
        )
    if bits.size and bits.max() >= _NARROW_LIMIT:
        return _sample_wide(bits, uniform)
    below_middle = np.bitwise_count(bits & _CHUNK_MASK)
    below_high = np.bitwise_count(bits & _TWO_CHUNKS_MASK)
    total = np.bitwise_count(bits)
    rank = (np.asarray(uniform) * total).astype(np.intp)
    in_middle, in_high = rank >= below_middle, rank >= below_high
    shift = (in_middle.astype(np.intp) + in_high) * _CHUNK
    word = ((bits >> shift.astype(np.uint64)) & _WORD_MASK).astype(np.intp)
    rank -= np.where(in_high, below_high, np.where(in_middle, below_middle, 0))
    return np.where(total > 0, _WORD_SELECT[word * _WORD + rank] + shift, 0).astype(np.int64)


def _sample_wide(bits: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """:func:`sample_actions` for masks of up to 64 bits: four 16-bit chunks."""
    total = np.bitwise_count(bits).astype(np.intp)
    rank = (np.asarray(uniform) * total).astype(np.intp)
    chunk = np.zeros(bits.shape, dtype=np.intp)
    below = np.zeros(bits.shape, dtype=np.intp)
    for index in (1, 2, 3):
        count = np.bitwise_count(bits & np.uint64((1 << (_WIDE * index)) - 1)).astype(np.intp)
        past = rank >= count
        chunk += past
        below = np.where(past, count, below)
    shift = chunk * _WIDE
    word = ((bits >> shift.astype(np.uint64)) & np.uint64((1 << _WIDE) - 1)).astype(np.intp)
    picked = _wide_select()[word * _WIDE + (rank - below)] + shift
    return np.where(total > 0, picked, 0).astype(np.int64)
