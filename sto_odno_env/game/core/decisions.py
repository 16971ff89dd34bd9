"""The decisions a player takes and what each does (docs/rules.md §4, §5).

``RuleTables.action_kind`` maps (phase, action) to a kind (:mod:`sto_odno_env.game.tables`);
:func:`apply_decisions` groups a batch's decisions by kind and runs each kind's handler
once on its games.
"""

from __future__ import annotations

import numpy as np

from ..cards import PHASE_CALL, PHASE_COVER
from ..chance import Chance
from ..tables import (
    K_ACCEPT,
    K_CALL,
    K_COVER_DRAW,
    K_DRAW,
    K_LAPSE,
    K_NO_CALL,
    K_ORDER,
    K_PASS,
    K_PLAY,
    NUM_KINDS,
)
from .bits import I16_1, I32_1, U64_0, all_set, any_set, cells
from .draws import draw_many, draw_one
from .legal import playable
from .scoring import note_plays
from .state import AFTER_DRAW, NO_SUIT, PLAY, State, mark_round_end, next_seat
from .turns import pass_turn, pass_with_effects


def apply_decisions(
    state: State,
    games: np.ndarray,
    actions: np.ndarray,
    forced: bool | np.ndarray,
    chance: Chance,
    trace,
) -> np.ndarray:
    """Apply one decision in each of ``games`` (all legal); return the games' turn counts.

    Rounds that end are marked (:func:`~.state.mark_round_end`) for the settle loop to
    score; the loop also truncates on the turn counts. ``forced`` marks the decisions that
    had one legal action (for the record)."""
    if trace is not None:
        players = state.current_player[games]
        flags = np.broadcast_to(np.asarray(forced, dtype=bool), games.shape).tolist()
        for game, player, action, flag in zip(
            games.tolist(), players.tolist(), actions.tolist(), flags, strict=True
        ):
            trace.emit(game, {"type": "action", "player": player, "action": action, "forced": flag})
    state.scratch.decisions += games.size
    turn = state.turn[games] + I32_1
    state.turn[games] = turn
    tables = state.tables
    kind = tables.action_kind.take(tables.action_rows.take(state.phase[games]) + actions)
    for code, chosen, chosen_actions in _by_kind(kind, games, actions):
        if code == K_PLAY:
            # Card ids stay intp: tables gather several times faster with intp indices.
            play_cards(state, chosen, chosen_actions, chance, trace)
        elif code == K_ORDER:
            suits = (chosen_actions - tables.deck.order_base).astype(np.int8)
            order_suits(state, chosen, suits, chance, trace)
        elif code == K_DRAW:
            draw_action(state, chosen, chance, trace)
        elif code == K_COVER_DRAW:
            draw_one(state, chosen, state.current_player[chosen], chance, trace)
        elif code == K_ACCEPT:
            accept_penalty(state, chosen, chance, trace)
        elif code == K_PASS:
            pass_turn(state, chosen)
        elif code == K_LAPSE:
            lapse_cover(state, chosen)
        elif code == K_CALL:
            after_call(state, chosen, chance, trace)
        elif code == K_NO_CALL:
            skip_call(state, chosen, chance, trace)
    return turn


def _by_kind(
    kind: np.ndarray, games: np.ndarray, actions: np.ndarray
) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(kind, games, actions) per kind present, in kind order."""
    if kind.size == 1:  # one game (OpenSpiel steps a batch of one): nothing to count or sort
        return [(int(kind[0]), games, actions)]
    counts = np.bincount(kind, minlength=NUM_KINDS).tolist()
    present = [code for code, count in enumerate(counts) if count]
    if len(present) == 1:
        return [(present[0], games, actions)]
    # one stable sort by kind, then a slice (a view) per kind
    order = np.argsort(kind, kind="stable")
    games_by_kind, actions_by_kind = games[order], actions[order]
    groups, start = [], 0
    for code in present:
        stop = start + counts[code]
        groups.append((code, games_by_kind[start:stop], actions_by_kind[start:stop]))
        start = stop
    return groups


def play_cards(state: State, games: np.ndarray, cards: np.ndarray, chance, trace) -> None:
    """Play a card from hand onto the pile: its effect follows (docs/rules.md §2, §5)."""
    tables = state.tables
    player = state.current_player[games]
    bits = tables.card_bit[cards]
    hands, at = cells(state.hand, games, player)
    hand = hands[at] ^ bits  # a legal play's card is in the hand: xor clears its bit
    hands[at] = hand
    size = state.discard_size[games]
    piles, top_at = cells(state.discard, games, size)
    card_ids = cards.astype(np.int8)  # the state's dtype: a store that casts costs far more
    piles[top_at] = card_ids
    state.discard_size[games] = size + I16_1
    state.discard_bits[games] = state.discard_bits[games] | bits  # |= costs twice as much
    state.top_card[games] = card_ids
    state.ordered_suit[games] = NO_SUIT
    state.drawn_card[games] = tables.no_card_id
    # A round that ends here is scored before its game decides again, so the phase set
    # for a finishing card is never read.
    state.phase[games] = tables.phase_after_play[cards]
    if state.combo_points is not None:
        note_plays(state, games, player, cards)
    passes = tables.passes_turn[cards]
    if not all_set(hand):  # a hand emptied: its round may end
        finishing = (hand == U64_0) & tables.can_finish[cards]
        if any_set(finishing):
            mark_round_end(state, games[finishing], player[finishing], cards[finishing])
            passes &= ~finishing
    if tables.call:
        # docs/rules.md §12: one card left: CALL comes next (after ORDER, before COVER and
        # before the card's effects on the next player).
        calling = (np.bitwise_count(hand) == 1) & ~tables.order_suit[cards]
        if any_set(calling):
            state.phase[games[calling]] = PHASE_CALL
            passes &= ~calling
    if all_set(passes):
        pass_with_effects(state, games, player, cards, chance, trace)
    elif any_set(passes):
        pass_with_effects(state, games[passes], player[passes], cards[passes], chance, trace)


def order_suits(state: State, games: np.ndarray, suits: np.ndarray, chance, trace) -> None:
    """Order a suit after a queen that orders; a cover may follow (docs/rules.md §5)."""
    state.ordered_suit[games] = suits
    if state.tables.call:
        # The queen left its player one card: CALL comes after the order (§12).
        hands, at = cells(state.hand, games, state.current_player[games])
        calling = np.bitwise_count(hands[at]) == 1
        if any_set(calling):
            state.phase[games[calling]] = PHASE_CALL
            games = games[~calling]
    after_card(state, games, chance, trace)


def after_card(state: State, games: np.ndarray, chance, trace) -> None:
    """The top card, played by the player to act, takes effect: a cover, or the turn passes
    with its effects (after ORDER; after CALL)."""
    if not games.size:
        return
    top = state.top_card[games].astype(np.intp)  # intp ids gather several times faster
    covers = state.tables.cover[top]
    state.phase[games[covers]] = PHASE_COVER
    rest = ~covers
    if any_set(rest):
        pass_with_effects(
            state, games[rest], state.current_player[games[rest]], top[rest], chance, trace
        )


def after_call(state: State, games: np.ndarray, chance, trace) -> None:
    """CALL in CALL: the last card is called; the card played goes on (§12)."""
    after_card(state, games, chance, trace)


def skip_call(state: State, games: np.ndarray, chance, trace) -> None:
    """PASS in CALL: the player draws ``call_penalty`` cards at once, then the card played
    goes on (§12). A steal on that draw that empties a hand ends the round there."""
    if not games.size:
        return
    player = state.current_player[games]
    count = np.full(games.shape, state.tables.call_penalty, dtype=np.int64)
    draw_many(state, games, player, count, chance, trace)
    if state.scratch.ending:
        games = games[~state.ending[games]]
    after_card(state, games, chance, trace)


def lapse_cover(state: State, games: np.ndarray) -> None:
    """PASS in COVER: nothing can be drawn, the obligation lapses (docs/rules.md §4, §7)."""
    if not games.size:
        return
    player = state.current_player[games]
    hands, at = cells(state.hand, games, player)
    empty = hands[at] == U64_0
    if any_set(empty):
        mark_round_end(state, games[empty], player[empty], state.top_card[games[empty]])
    pass_turn(state, games[~empty])


def draw_action(state: State, games: np.ndarray, chance, trace) -> None:
    """DRAW in PLAY: one card, or until a playable one (docs/rules.md §4)."""
    if not games.size:
        return
    player = state.current_player[games]
    drawn = draw_one(state, games, player, chance, trace)
    last = drawn
    tables = state.tables
    if tables.until_playable:
        last = drawn.copy()
        no_card, card_bit = tables.deck.no_card, tables.card_bit
        going = (drawn != no_card) & ~state.ending[games]
        going &= (card_bit[drawn] & playable(state, games)) == U64_0
        while any_set(going):
            index = going.nonzero()[0]
            more = draw_one(state, games[index], player[index], chance, trace)
            got = more != no_card
            last[index[got]] = more[got]
            going[index] = (
                got
                & ~state.ending[games[index]]
                & ((card_bit[more] & playable(state, games[index])) == U64_0)
            )
    state.drawn_card[games] = last
    state.phase[games] = AFTER_DRAW


def accept_penalty(state: State, games: np.ndarray, chance, trace) -> None:
    """DRAW in RESPOND: take the whole stacked penalty, then skip if the top card skips."""
    if not games.size:
        return
    player = state.current_player[games]
    draw_many(state, games, player, state.pending[games], chance, trace)
    state.pending[games] = 0
    skips = state.tables.skip[state.top_card[games]]
    state.current_player[games] = np.where(skips, next_seat(state, games, player), player)
    state.phase[games] = PLAY
