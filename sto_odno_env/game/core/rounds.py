"""The start and end of rounds and matches (docs/rules.md §3, §7, §8).

A round that ends is only marked while decisions are applied; :func:`end_waiting_rounds`
is the one place that ends rounds: it scores them (:mod:`.scoring`), then deals the next
round or ends the match.
"""

from __future__ import annotations

import numpy as np

from .. import rng
from ..cards import PHASE_CALL, PHASE_COVER, PHASE_ORDER, PHASE_PLAY
from .bits import U64_0, any_set, cells
from .draws import draw_many
from .scoring import end_match, note_plays, score_rounds
from .state import NOBODY, State, next_seat
from .turns import pass_with_effects

RECORD_VERSION = 1


def start_match(state: State, games: np.ndarray, seeds: np.ndarray, chance, trace) -> None:
    """Start new matches in ``games`` with the match ``seeds`` and deal their first round
    (one that ends at the deal is scored at once)."""
    P = state.players
    state.seed[games] = seeds
    state.rng_key[games] = rng.key_of_seed(seeds)
    state.rng_counter[games] = 0
    state.totals[games] = 0
    state.in_match[games] = (1 << P) - 1
    state.eliminated_round[games] = -1
    state.ranking[games] = NOBODY
    state.terminated[games] = False
    state.truncated[games] = False
    state.round[games] = 0
    state.last_finisher[games] = NOBODY
    state.ending[games] = False
    if trace is not None:
        rules = state.rules.to_dict()
        for game, seed in zip(games.tolist(), seeds.tolist(), strict=False):
            trace.start_match(game)
            trace.emit(
                game,
                {
                    "type": "match",
                    "version": RECORD_VERSION,
                    "rules": rules,
                    "players": P,
                    "seed": int(seed),
                },
            )
    dealer = np.asarray(chance.first_dealer(state, games), dtype=np.int8)
    start_round(state, games, dealer, chance, trace)
    end_waiting_rounds(state, chance, trace)


def start_round(state: State, games: np.ndarray, dealer: np.ndarray, chance, trace) -> None:
    """Shuffle, deal one card at a time from the player after the dealer, and open
    (docs/rules.md §3). A steal on the opening penalty may end the round: it is marked, and the
    caller ends it (:func:`end_waiting_rounds`)."""
    tables = state.tables
    P = state.players
    deck = np.asarray(chance.deck(state, games), dtype=np.int8)
    state.dealer[games] = dealer
    state.turn[games] = 0
    state.pending[games] = 0
    state.ordered_suit[games] = -1
    state.drawn_card[games] = tables.deck.no_card
    if state.combo_points is not None and state.combo_multiplier is not None:
        state.combo_points[games] = 0
        state.combo_multiplier[games] = 1
    if trace is not None:
        for game, row, who, number in zip(
            games.tolist(),
            deck.tolist(),
            dealer.tolist(),
            state.round[games].tolist(),
            strict=False,
        ):
            trace.emit(game, {"type": "round", "round": number, "dealer": who, "deck": row})
    n = games.size
    # Dealing order: next(dealer), next(next(dealer)), ..., dealer.
    order = np.empty((n, P), dtype=np.intp)
    seat = dealer.astype(np.intp)
    for place in range(P):
        seat = next_seat(state, games, seat).astype(np.intp)
        order[:, place] = seat
    in_count = np.bitwise_count(state.in_match[games]).astype(np.intp)
    dealt = in_count * tables.hand_size
    cards = tables.deck.cards
    position = np.arange(cards)[None, :]
    receiver = np.take_along_axis(order, position % in_count[:, None], axis=1)
    receiver = np.where(position < dealt[:, None], receiver, -1)
    card_bit = tables.card_bit
    bits = card_bit[deck]
    hands = np.zeros((n, P), dtype=np.uint64)
    for seat_index in range(P):
        hands[:, seat_index] = np.bitwise_or.reduce(
            np.where(receiver == seat_index, bits, U64_0), axis=1
        )
    state.hand[games] = hands
    state.stock[games] = deck[:, ::-1]
    state.stock_size[games] = cards - dealt
    state.discard_size[games] = 0
    state.discard_bits[games] = 0
    state.top_card[games] = tables.deck.no_card
    state.current_player[games] = dealer
    state.phase[games] = PHASE_PLAY
    if tables.leader_plays:
        return
    opening = deck[np.arange(n), dealt - 1]
    hands, at = cells(state.hand, games, dealer)
    hands[at] &= ~card_bit[opening]
    state.discard[games, 0] = opening
    state.discard_size[games] = 1
    state.discard_bits[games] = card_bit[opening]
    state.top_card[games] = opening
    if state.combo_points is not None:
        note_plays(state, games, dealer.astype(np.intp), opening)  # the dealer's play
    # The opening card takes effect exactly as if the dealer had played it (docs/rules.md §3).
    orders = tables.order_suit[opening]
    state.phase[games[orders]] = PHASE_ORDER
    if tables.call:  # §12: the opening left the dealer one card: CALL (after any ORDER)
        calling = ~orders & (np.bitwise_count(hands[at]) == 1)
        state.phase[games[calling]] = PHASE_CALL
        orders = orders | calling
    covers = ~orders & tables.cover[opening]
    state.phase[games[covers]] = PHASE_COVER
    rest = ~orders & ~covers
    if any_set(rest):
        pass_with_effects(state, games[rest], dealer[rest], opening[rest], chance, trace)


def end_rounds(state: State, games: np.ndarray, chance, trace) -> None:
    """Score the ended rounds of ``games`` (after a last card's effects, where the rules
    apply them), then deal the next round or end the match."""
    tables = state.tables
    finisher = state.end_finisher[games]
    last_card = state.end_last_card[games]
    if tables.last_card_effects:
        penalty = state.pending[games] + tables.draw[last_card]
        hit = penalty > 0
        if any_set(hit):
            # The round is already over: a steal that empties a hand here ends nothing more
            # (``ending`` stays set meanwhile, so no second round end is marked).
            draw_many(
                state,
                games[hit],
                next_seat(state, games[hit], finisher[hit]),
                penalty[hit],
                chance,
                trace,
                stop_at_round_end=False,
            )
    state.ending[games] = False
    match_over = score_rounds(state, games, finisher, last_card, trace)
    if any_set(match_over):
        end_match(state, games[match_over], truncated=False, trace=trace)
    going_on = games[~match_over]
    if going_on.size:
        state.round[going_on] += 1
        if tables.leader_plays:
            leader = finisher[~match_over]
            gone = ((state.in_match[going_on].astype(np.intp) >> leader) & 1) == 0
            dealer = np.where(gone, next_seat(state, going_on, leader), leader)
        else:
            dealer = next_seat(state, going_on, state.dealer[going_on])
        start_round(state, going_on, dealer.astype(np.int8), chance, trace)


def end_waiting_rounds(state: State, chance, trace) -> np.ndarray | None:
    """End every round waiting in ``state.scratch.ending`` (the one round-end path): score
    it and deal the next, again while a new round ends at its deal (a steal on the opening
    penalty). Returns the games whose rounds ended (None when none was waiting)."""
    scratch = state.scratch
    ended: np.ndarray | None = None
    while scratch.ending:
        ending = np.concatenate(scratch.ending)
        scratch.ending.clear()
        end_rounds(state, ending, chance, trace)
        if ended is None:
            ended = ending  # the later groups are among these games
    return ended


def truncate(state: State, games: np.ndarray, trace) -> None:
    """A round reached max_turns: the match ends, truncated, without scoring the round."""
    end_match(state, games, truncated=True, trace=trace)
