"""Scores, eliminations, rankings and rewards (docs/rules.md §7, §8)."""

from __future__ import annotations

import numpy as np

from ..cards import PHASE_DONE
from .bits import any_set
from .state import NOBODY, State

SUBTRACT = 1  # tables.leftover: LEFTOVER_BONUSES.index("subtract")


def hand_points(state: State, games: np.ndarray | None = None) -> np.ndarray:
    """(n, P) int32: points of the cards each seat holds (docs/rules.md §7)."""
    hands = state.hand if games is None else state.hand[games]
    bits = np.unpackbits(
        hands.view(np.uint8).reshape(*hands.shape, 8),
        axis=-1,
        count=state.tables.deck.cards,
        bitorder="little",
    )
    return bits.astype(np.int32) @ state.tables.points


def ranking_keys(state: State, games: np.ndarray) -> np.ndarray:
    """(n, P) sort keys, lower is better: players in by total, then the eliminated,
    those eliminated later first, each group by total (docs/rules.md §7, §8)."""
    eliminated = state.eliminated_round[games].astype(np.int64)
    group = np.where(eliminated < 0, 0, 1 + (np.iinfo(np.int16).max - eliminated))
    return group * (1 << 32) + state.totals[games].astype(np.int64) + (1 << 31)


def match_rewards(keys: np.ndarray) -> np.ndarray:
    """Zero-sum rewards from ranking keys: +1 for the best to −1 for the worst, linear in
    the place; tied players share the mean of their places' rewards."""
    _n, players = keys.shape
    place_reward = np.linspace(1.0, -1.0, players)
    better = (keys[:, None, :] < keys[:, :, None]).sum(axis=2)
    ties = (keys[:, None, :] == keys[:, :, None]).sum(axis=2)
    # Tied players occupy places better .. better + ties - 1: average their rewards.
    cumulative = np.concatenate([[0.0], np.cumsum(place_reward)])
    shared = (cumulative[better + ties] - cumulative[better]) / ties
    return shared.astype(np.float32)


def note_plays(state: State, games: np.ndarray, players: np.ndarray, cards: np.ndarray) -> None:
    """bonus_combo (docs/rules.md §12): a card play extends its player's run of bonus-card plays
    (points add up, the largest multiplier holds) or, for a card with no bonus entry, ends
    it. Draws, passes, orders and calls leave the run as it is."""
    tables = state.tables
    # only called with bonus_combo on, where the state holds the runs
    assert state.combo_points is not None and state.combo_multiplier is not None
    is_bonus = tables.bonus_card[cards]
    run = state.combo_points[games, players]
    state.combo_points[games, players] = np.where(is_bonus, run + tables.bonus_points[cards], 0)
    largest = np.maximum(state.combo_multiplier[games, players], tables.bonus_multiplier[cards])
    state.combo_multiplier[games, players] = np.where(is_bonus, largest, 1)


def _choose_pairs(tables, bits: np.ndarray, points: np.ndarray, old: np.ndarray) -> np.ndarray:
    """Points of hands holding ``[low, high]`` cards (docs/rules.md §12): all count high; as
    many as needed count low, the largest ``high - low`` first, so that ``old + points``
    does not pass the target (all low if even that passes); under reset_at_target any
    choice of low cards that lands exactly on the target comes first. ``bits`` (n, P, N)
    are the cards that score as ordinary cards, ``points`` (n, P) their points at high."""
    held = bits[..., tables.pair_cards]  # (n, P, K), the largest saving first
    saved = np.cumsum(held * tables.pair_savings, axis=-1)
    options = np.concatenate([points[..., None], points[..., None] - saved], axis=-1)
    valid = np.concatenate([np.ones_like(held[..., :1]), held], axis=-1) != 0
    landing = old[..., None] + options
    fits = valid & (landing <= tables.target)
    # No fitting choice: all low, the last option (its value whatever the last card held).
    choice = np.where(fits.any(axis=-1), fits.argmax(axis=-1), options.shape[-1] - 1)
    chosen = np.take_along_axis(options, choice[..., None], axis=-1)[..., 0]
    if tables.reset_at_target:
        # Any set of the held pair cards whose savings add up to exactly the excess lands
        # on the target (a subset sum over the few pair cards held).
        excess = old + points - tables.target
        reach = np.zeros((*points.shape, int(tables.pair_savings.sum()) + 1), dtype=bool)
        reach[..., 0] = True
        for j, saving in enumerate(tables.pair_savings.tolist()):
            shifted = np.zeros_like(reach)
            shifted[..., saving:] = reach[..., :-saving]
            reach |= shifted & (held[..., j, None] != 0)
        inside = (excess >= 0) & (excess < reach.shape[-1])
        index = np.clip(excess, 0, reach.shape[-1] - 1)[..., None]
        exact = inside & np.take_along_axis(reach, index, axis=-1)[..., 0]
        chosen = np.where(exact, points - excess, chosen)
    return chosen


def _points_with_switches(
    state: State, games: np.ndarray, finisher: np.ndarray, last_card: np.ndarray, was_in
) -> np.ndarray:
    """(n, P) round points under the scoring switches of docs/rules.md §12 (the plain path of
    §7 is in :func:`score_rounds`; this one runs only when a switch is on)."""
    tables = state.tables
    seats = np.arange(state.players)
    old = state.totals[games]
    hands = state.hand[games]
    cards = tables.deck.cards
    bits = np.unpackbits(
        hands.view(np.uint8).reshape(*hands.shape, 8), axis=-1, count=cards, bitorder="little"
    ).astype(np.int32)
    extra: int | np.ndarray = 0
    if tables.leftover:
        # leftover_bonus: a hand of bonus cards only (subtract) scores their bonus points;
        # a hand with exactly one bonus card (single_adds) scores |its bonus| for it.
        bonus_bits = bits * tables.bonus_card[:cards]
        count = bonus_bits.sum(axis=-1)
        if tables.leftover == SUBTRACT:
            special = (count > 0) & (count == bits.sum(axis=-1))
            extra = np.where(special, bonus_bits @ tables.bonus_points[:cards], 0)
            bits = np.where(special[..., None], 0, bits)
        else:
            special = count == 1
            extra = np.where(special, bonus_bits @ np.abs(tables.bonus_points[:cards]), 0)
            bits = bits - np.where(special[..., None], bonus_bits, 0)
    points = bits @ tables.points
    if tables.pair_cards.size:
        points = _choose_pairs(tables, bits, points, old + extra)
    points = points + extra
    multiplier = tables.bonus_multiplier[last_card][:, None]
    bonus = tables.bonus_points[last_card]
    if tables.bonus_combo:
        # The finisher's final run of bonus-card plays, ending with the last card (a round
        # won by a steal has no last card and no bonus).
        assert state.combo_points is not None and state.combo_multiplier is not None
        has_last = last_card != tables.deck.no_card
        bonus = np.where(has_last, state.combo_points[games, finisher], 0)
        multiplier = np.where(has_last, state.combo_multiplier[games, finisher], 1)[:, None]
    if tables.scope_total:
        # multiplier_scope total: new total = (old + points) × multiplier when that sum is
        # positive; the round's points are the change of the total.
        summed = old + points
        points = np.where(summed > 0, summed * multiplier, summed) - old
    elif tables.leftover:
        points = np.where(points < 0, points, points * multiplier)  # never a negative score
    else:
        points = points * multiplier
    is_finisher = seats[None, :] == finisher[:, None]
    points = np.where(is_finisher, bonus[:, None], points)
    if tables.holder_mask:
        # holder_wins: a non-finisher holding such a card scores 0, with no bonus.
        points = np.where((hands & tables.holder_mask) != 0, 0, points)
    return np.where(was_in, points, 0)


def score_rounds(
    state: State, games: np.ndarray, finisher: np.ndarray, last_card: np.ndarray, trace
) -> np.ndarray:
    """Score the ended rounds of ``games`` (docs/rules.md §7): the others' hand points (times a
    last card's multiplier) and the finisher's bonus join the totals, a total at the target
    resets, players over it go out and are paid. Returns where the match is over (§8)."""
    tables = state.tables
    state.outputs_set = True
    seats = np.arange(state.players)
    in_bits = state.in_match[games].astype(np.intp)
    was_in = (in_bits[:, None] >> seats[None, :]) & 1 == 1
    if tables.scoring_extras:
        points = _points_with_switches(state, games, finisher, last_card, was_in)
    else:
        points = hand_points(state, games) * tables.bonus_multiplier[last_card][:, None]
        is_finisher = seats[None, :] == finisher[:, None]
        points = np.where(is_finisher, tables.bonus_points[last_card][:, None], points)
        points = np.where(was_in, points, 0)
    totals = state.totals[games] + points
    if tables.reset_at_target:
        totals = np.where(was_in & (totals == tables.target), 0, totals)
    state.totals[games] = totals
    state.round_points[games] += points
    state.rounds_ended[games] += 1
    going_out = was_in & (totals > tables.target)
    eliminated_round = np.where(
        going_out, state.round[games][:, None], state.eliminated_round[games]
    )
    state.eliminated_round[games] = eliminated_round
    out_bits = (going_out.astype(np.intp) << seats[None, :]).sum(axis=1)
    still_in = in_bits & ~out_bits
    state.in_match[games] = still_in
    state.last_finisher[games] = finisher
    if tables.first_loser:
        match_over = out_bits != 0
    else:
        match_over = np.bitwise_count(still_in.astype(np.uint8)) <= 1
    if trace is not None:
        no_card = tables.deck.no_card
        for i, game in enumerate(games.tolist()):
            now_out = [p for p in range(state.players) if not (still_in[i] >> p & 1)]
            trace.emit(
                game,
                {
                    "type": "round_end",
                    "finisher": int(finisher[i]),
                    "last_card": None if last_card[i] == no_card else int(last_card[i]),
                    "points": [
                        int(points[i, p]) if was_in[i, p] else None for p in range(state.players)
                    ],
                    "totals": [int(t) for t in totals[i]],
                    "out": now_out,
                },
            )
    eliminations = going_out.any(axis=1) & ~match_over
    if any_set(eliminations):
        # An eliminated player's place is final: it is paid now, as it leaves.
        paid = games[eliminations]
        place_rewards = match_rewards(ranking_keys(state, paid))
        state.rewards[paid] += np.where(going_out[eliminations], place_rewards, 0.0)
    return match_over


def end_match(state: State, games: np.ndarray, *, truncated: bool, trace) -> None:
    """End the matches of ``games``: rank the players, pay the rewards (docs/rules.md §8)."""
    state.outputs_set = True
    keys = ranking_keys(state, games)
    order = np.argsort(keys, axis=1, kind="stable").astype(np.int8)
    state.ranking[games] = order
    state.final_ranking[games] = order
    state.final_totals[games] = state.totals[games]
    if truncated:
        state.truncated[games] = True
        state.step_truncated[games] = True
    else:
        state.terminated[games] = True
        state.step_terminated[games] = True
        # Players eliminated in earlier rounds were paid when they went out.
        eliminated = state.eliminated_round[games]
        unpaid = (eliminated < 0) | (eliminated == state.round[games][:, None])
        state.rewards[games] += np.where(unpaid, match_rewards(keys), 0.0)
    state.scratch.matches_ended += games.size
    state.phase[games] = PHASE_DONE
    state.current_player[games] = NOBODY
    state.legal_bits[games] = 0
    state.matches_played[games] += 1
    if trace is not None:
        for i, game in enumerate(games.tolist()):
            trace.emit(
                game,
                {
                    "type": "match_end",
                    "ranking": [int(p) for p in order[i]],
                    "totals": [int(t) for t in state.totals[game]],
                    "truncated": truncated,
                },
            )
