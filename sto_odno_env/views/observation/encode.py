"""The observation builders: :func:`observe` for a batch of games (lookup tables OR-ed as
packed bits, unpacked once) and :func:`observe_one` for one game from Python scalars, the
same encoding (``tests/test_observation.py`` checks they agree)."""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

import numpy as np

from ...game.cards import (
    PHASE_AFTER_DRAW,
    PHASE_CALL,
)
from ...game.engine import State, unpack_actions
from ...game.rules import MAX_PLAYERS
from .fields import _ENCODINGS, _SEAT_STRIDES, _U64, MAX_OTHERS, _encoding


@lru_cache(maxsize=8)
def _others(players: int) -> np.ndarray:
    """[seat] -> the other seats clockwise from it."""
    return (np.arange(players)[:, None] + np.arange(1, players)[None, :]) % players


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
        words.view(np.uint8).reshape(B, enc.flag_bytes),
        axis=1,
        count=flags,
        bitorder="little",
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


class ActingPolicy(Protocol):
    """The kit's policy interface: actions for a batch of observations and legal-action
    masks (a policy that reads the masks alone sets ``needs_observation = False``)."""

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray: ...


def policy_actions(
    policy: ActingPolicy, state: State, games: np.ndarray, seats: np.ndarray
) -> np.ndarray:
    """``policy``'s actions (int64) for ``seats``, the seats to act in ``games``, from their
    masks and, unless the policy reads the masks alone, their observations."""
    masks = unpack_actions(state.legal_bits[games], state.tables.num_actions)
    if getattr(policy, "needs_observation", True):
        observations = observe(state, seats, games=games)
    else:
        observations = None
    # observations is None only for a policy with needs_observation = False, which reads
    # the masks alone (bots/policy.py); the Protocol's type does not say so.
    return np.asarray(policy.act(observations, masks), dtype=np.int64)  # type: ignore[arg-type]
