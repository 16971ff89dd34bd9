"""Engine states built from what one seat knows, with the hidden cards sampled.

:func:`from_observations` turns observation vectors into full engine states for search
(determinisation): the observer's hand, the top card, the discard pile, the ordered suit,
the phase, the pending penalty, the counts and totals are as observed; the cards the
observer cannot see are dealt at random to the other hands (with their observed sizes)
and the stock. The observer sits in seat 0 and the others follow clockwise, so seat ``k``
is the seat ``k`` places after the observer. The discard pile's order below its top card
is not observed and is shuffled too.

Each sample is a consistent deal of the unseen cards: no card is in two places, the
sizes match. Round and turn counters start at 0 (rollouts run to the end of the round,
so truncation and elimination history do not matter there).
"""

from __future__ import annotations

import numpy as np

from ..game import engine, rng
from ..game.cards import PHASE_CALL
from ..game.rules import Rules, load_rules
from ..game.tables import CARD_BIT, deck_masks
from .observation import ObservationView, layout, obs_size


def _bits_of(rows: np.ndarray, card_bit: np.ndarray = CARD_BIT) -> np.ndarray:
    """(n, N) bool card sets -> (n,) uint64 masks (N: 36, or 52 with that deck's bits)."""
    weights = card_bit[: rows.shape[1]]
    return np.bitwise_or.reduce(np.where(rows, weights[None, :], np.uint64(0)), axis=1)


def from_observations(
    rules: Rules | str,
    observations: np.ndarray,
    samples: int = 1,
    seed: int = 0,
) -> engine.State:
    """``samples`` determinised states per observation: batch ``len(observations) * samples``,
    row ``i * samples + k`` is sample ``k`` of observation ``i``; the observer is seat 0.
    """
    rules = load_rules(rules)
    observations = np.atleast_2d(np.asarray(observations, dtype=np.float32))
    if observations.shape[1] != obs_size(rules):
        raise ValueError(
            f"observations have {observations.shape[1]} entries; rules {rules.name!r} "
            f"observe {obs_size(rules)}"
        )
    deck = rules.deck_spec
    cards, no_card = deck.cards, deck.no_card
    card_bit = deck_masks(deck).card_bit
    obs_layout = layout(rules)
    view = ObservationView(observations, rules.target, deck)
    players_of = view.num_players
    if (players_of != players_of[0]).any():
        raise ValueError("all observations must come from games of the same player count")
    players = int(players_of[0])
    n = observations.shape[0]
    total = n * samples
    state = engine.empty_state(rules, players, total)
    rows = np.repeat(np.arange(n), samples)

    hand = view.hand[rows]
    discard = view.discard[rows]
    top = view.top_card[rows]
    others = view.others_hand_size[rows][:, : players - 1]
    generator = np.random.default_rng(seed)

    # Deal the unseen cards: a random order of them, cut into the other hands and the stock.
    unseen = ~(hand | discard)
    keys = generator.random((total, cards))
    keys[~unseen] = 2.0  # seen cards sort last
    order = np.argsort(keys, axis=1)
    unseen_count = unseen.sum(axis=1)
    stock_size = view.stock_size[rows]
    if ((others.sum(axis=1) + stock_size) != unseen_count).any():
        raise ValueError(
            "observation is inconsistent: hand sizes and stock do not add up to the unseen cards"
        )
    bounds = np.concatenate([np.zeros((total, 1), np.int64), np.cumsum(others, axis=1)], axis=1)
    position = np.arange(cards)[None, :]
    state.hand[:, 0] = _bits_of(hand, card_bit)
    sorted_bits = card_bit[order]
    for seat in range(1, players):
        mine = (position >= bounds[:, seat - 1 : seat]) & (position < bounds[:, seat : seat + 1])
        state.hand[:, seat] = np.bitwise_or.reduce(
            np.where(mine, sorted_bits, np.uint64(0)), axis=1
        )
    # The stock is a stack (top last): the remaining unseen cards in their random order.
    start = bounds[:, -1]
    stock_index = np.clip(start[:, None] + position, 0, cards - 1)
    state.stock[:] = np.where(
        position < stock_size[:, None], np.take_along_axis(order, stock_index, axis=1), 0
    )
    state.stock_size[:] = stock_size

    # The discard pile: the other discarded cards in random order, then the top card.
    below = discard.copy()
    on_table = top >= 0
    below[np.flatnonzero(on_table), top[on_table]] = False
    pile_keys = generator.random((total, cards))
    pile_keys[~below] = 2.0
    pile = np.argsort(pile_keys, axis=1).astype(np.int8)
    below_count = below.sum(axis=1)
    state.discard[:] = np.where(position < below_count[:, None], pile, 0)
    state.discard[np.flatnonzero(on_table), below_count[on_table]] = top[on_table]
    state.discard_size[:] = below_count + on_table
    state.discard_bits[:] = _bits_of(discard, card_bit)
    state.top_card[:] = np.where(on_table, top, no_card)

    suit = view.ordered_suit[rows]
    state.ordered_suit[:] = np.where((suit >= 0) & (suit < rules.deck_spec.suits), suit, -1)
    phase = view.phase[rows]
    if (phase < 0).any():
        raise ValueError("cannot determinise an observation of a finished match")
    if rules.last_card_call:  # CALL shows as PLAY plus the ``call`` entry
        phase = np.where(observations[rows, obs_layout["call"].start] > 0.5, PHASE_CALL, phase)
    state.phase[:] = phase
    to_act = view.to_act[rows]
    state.current_player[:] = to_act
    drawn = view.drawn_card[rows]
    state.drawn_card[:] = np.where(drawn >= 0, drawn, no_card)
    state.pending[:] = view.pending[rows]

    seats_in = np.concatenate(
        [np.ones((total, 1), bool), view.others_in[rows][:, : players - 1]], axis=1
    )
    state.in_match[:] = (seats_in.astype(np.uint8) << np.arange(players, dtype=np.uint8)).sum(
        axis=1
    )
    state.eliminated_round[:] = np.where(seats_in, -1, 0)
    totals = np.concatenate(
        [view.own_total[rows][:, None], view.others_total[rows][:, : players - 1]], axis=1
    )
    state.totals[:] = totals
    own_dealer = observations[rows, obs_layout["own_dealer"].start] > 0.5
    other_dealer = observations[rows][:, obs_layout["others_dealer"]][:, : players - 1].argmax(
        axis=1
    )
    state.dealer[:] = np.where(own_dealer, 0, other_dealer + 1)
    seeds = rng.game_seeds(int(seed), total)
    state.seed[:] = seeds
    state.rng_key[:] = rng.key_of_seed(seeds)
    engine.refresh_legal(state)
    return state
