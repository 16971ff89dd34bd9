"""Drawing, reshuffles and steals (docs/rules.md §6).

A player owed cards takes them from the top of the stock; an empty stock is refilled from
the pile but its top card (shuffled, or turned over under ``reshuffle: flip``); what
still cannot be drawn is stolen from the next player holding cards (``empty_stock:
steal``) or forgiven. ``chance`` supplies the shuffles and the stolen cards
(:mod:`sto_odno_env.game.chance`); ``trace`` collects record events (docs/rules.md §10).
"""

from __future__ import annotations

import numpy as np

from .bits import I16_0, I16_1, U64_0, all_set, any_set, cells
from .state import NEXT_SEAT, NOBODY, State, mark_round_end


def draw_many(
    state: State,
    games: np.ndarray,
    player: np.ndarray,
    count: np.ndarray,
    chance,
    trace,
    stop_at_round_end: bool = True,
) -> None:
    """Each player takes ``count`` (>= 1) cards; what cannot be drawn is forgiven (docs/rules.md
    §6). A steal that empties a hand ends the round, and the drawing with it.
    """
    # Only a round that ended in this pass can have ended for these games.
    check_ending = stop_at_round_end and bool(state.scratch.ending)
    size = state.stock_size[games]
    if all_set(count <= size) and not (check_ending and any_set(state.ending[games])):
        draw_top(state, games, player, count, size)  # the stock holds every penalty
        return
    going = ~state.ending[games] if check_ending else np.ones(games.shape, dtype=bool)
    # Take what the stock holds at once, reshuffle where it ran out, take again: a second
    # reshuffle can find only the top card on the pile, so what is still owed after that
    # is stolen (where the rules steal) or forgiven, one card at a time.
    owed = count.astype(np.int64)
    for _ in range(2):
        rows = going.nonzero()[0]
        if not rows.size:
            return
        size = state.stock_size[games[rows]]
        empty = size == 0
        if any_set(empty):
            reshuffle(state, games[rows[empty]], chance, trace)
            size = state.stock_size[games[rows]]
        take = np.minimum(owed[rows], size)
        taking = take > 0
        if any_set(taking):
            part = rows[taking]
            draw_top(state, games[part], player[part], take[taking], size[taking])
            owed[part] -= take[taking]
        going[rows] = owed[rows] > 0
    if not state.tables.steal:
        return
    while any_set(going):
        index = going.nonzero()[0]
        drawn = draw_one(state, games[index], player[index], chance, trace)
        owed[index] -= 1
        going[index] = (drawn != state.tables.deck.no_card) & (owed[index] > 0)
        if stop_at_round_end:
            going[index] &= ~state.ending[games[index]]


def draw_top(
    state: State, games: np.ndarray, player: np.ndarray, count: np.ndarray, size: np.ndarray
) -> None:
    """Each player takes the top ``count`` cards of a stock that holds at least that many."""
    most = int(count[0]) if count.size == 1 else int(count.max())  # max() is slow on one
    if most == 1:  # one card each (a common penalty): no (n, depth) arrays
        take_top_card(state, games, player, size)
        return
    hands, at = cells(state.hand, games, player)
    depth = _DEPTHS[most]
    # Below a game's own count the positions may leave its stack: clamped, then masked.
    position = np.maximum((size - I16_1)[:, None] - depth, _BOTTOM)
    stocks, cards_at = cells(state.stock, games[:, None], position)
    bits = np.where(depth < count[:, None], state.tables.card_bit.take(stocks[cards_at]), U64_0)
    hands[at] = hands[at] | np.bitwise_or.reduce(bits, axis=1)  # |= costs twice as much
    state.stock_size[games] = size - count


_DEPTHS = [np.arange(most, dtype=np.intp)[None, :] for most in range(65)]  # (1, most)
_BOTTOM = np.array(0, dtype=np.intp)


def take_top_card(
    state: State, games: np.ndarray, player: np.ndarray, size: np.ndarray
) -> np.ndarray:
    """Each player takes the top card of a non-empty stock of ``size`` cards; returns it."""
    size = size - I16_1
    stocks, at = cells(state.stock, games, size)
    drawn = stocks[at]
    state.stock_size[games] = size
    hands, at = cells(state.hand, games, player)
    hands[at] = hands[at] | state.tables.card_bit.take(drawn)  # |= costs twice as much
    return drawn


def draw_one(state: State, games: np.ndarray, player: np.ndarray, chance, trace) -> np.ndarray:
    """Each player takes the top card of the stock; NO_CARD where nothing can be drawn."""
    size = state.stock_size[games]
    if all_set(size):  # every stock holds a card
        return take_top_card(state, games, player, size)
    reshuffle(state, games[size == I16_0], chance, trace)
    size = state.stock_size[games]
    has = size > I16_0
    if all_set(has):
        return take_top_card(state, games, player, size)
    drawn = np.full(games.shape, state.tables.deck.no_card, dtype=np.int8)
    if any_set(has):
        drawn[has] = take_top_card(state, games[has], player[has], size[has])
    if state.tables.steal:
        lacking = (~has).nonzero()[0]
        drawn[lacking] = steal(state, games[lacking], player[lacking], chance, trace)
    return drawn


def reshuffle(state: State, games: np.ndarray, chance, trace) -> None:
    """The pile but its top card becomes the stock (docs/rules.md §6)."""
    sizes = state.discard_size[games]
    can = sizes > 1
    if not all_set(can):
        games, sizes = games[can], sizes[can]
        if not games.size:
            return
    counts = sizes.astype(np.int64) - 1
    pile = np.take(state.discard, games, axis=0)
    if state.tables.flip:
        # Turned over: the oldest card (the pile's first) is the new top (the stack's last).
        column = counts[:, None] - 1 - np.arange(pile.shape[1])[None, :]
        stack = np.take_along_axis(pile, np.maximum(column, 0), axis=1)
    else:
        stack = chance.shuffle(state, games, pile, counts)
    state.stock[games] = stack
    state.stock_size[games] = counts
    top = state.top_card[games]
    state.discard.reshape(-1)[games * state.discard.shape[1]] = top
    state.discard_size[games] = 1
    state.discard_bits[games] = state.tables.card_bit[top]
    if trace is not None:
        for game, row, count in zip(games.tolist(), stack.tolist(), counts.tolist(), strict=True):
            trace.emit(game, {"type": "reshuffle", "stock": row[:count][::-1]})


def steal(state: State, games: np.ndarray, drawer: np.ndarray, chance, trace) -> np.ndarray:
    """The drawer takes a random card from the next player clockwise who holds cards
    (``empty_stock: steal``); a hand emptied so ends the round. Returns the cards taken,
    NO_CARD where nobody holds one (the draw is forgiven)."""
    holding = np.zeros(games.shape, dtype=np.intp)
    for seat in range(state.players):
        holding |= (state.hand[games, seat] != U64_0).astype(np.intp) << seat
    holding &= ~(1 << drawer.astype(np.intp))
    victim = NEXT_SEAT[holding * 8 + drawer]
    no_card = state.tables.deck.no_card
    drawn = np.full(games.shape, no_card, dtype=np.int8)
    someone = victim != NOBODY  # nobody holds a card: the draw is forgiven
    if not all_set(someone):
        games, drawer, victim = games[someone], drawer[someone], victim[someone]
        if not games.size:
            return drawn
    cards = np.asarray(chance.steal(state, games, drawer, victim), dtype=np.int8)
    drawn[someone] = cards
    bits = state.tables.card_bit[cards]
    hands, victim_at = cells(state.hand, games, victim)
    hands[victim_at] &= ~bits
    hands, drawer_at = cells(state.hand, games, drawer)
    hands[drawer_at] |= bits
    if trace is not None:
        for game, who, whom, card in zip(
            games.tolist(), drawer.tolist(), victim.tolist(), cards.tolist(), strict=False
        ):
            trace.emit(game, {"type": "steal", "player": who, "from": whom, "card": card})
    emptied = (hands[victim_at] == U64_0) & ~state.ending[games]
    if any_set(emptied):
        mark_round_end(
            state, games[emptied], victim[emptied], np.full(int(emptied.sum()), no_card, np.int8)
        )
    return drawn
