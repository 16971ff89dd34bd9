"""OpenSpiel's ``resample_from_infostate``: the cards a seat cannot see, dealt again.

What a seat knows of the hidden cards (the other hands and the stock) is public except
for its own hand, and only the current round matters (every round deals the whole deck
again). Each hidden card has a public *origin*: the last stock it went into that everybody
saw the cards of, which is the round's deck for a card nobody has seen this round, or a
reshuffle for a card last seen on the pile before it was shuffled into the stock. A card
can only have reached a hand or the stock from its origin, and how many cards of each
origin every seat holds is public too (who drew how many from which stock, which cards
each played). So a state the seat cannot tell apart keeps, for every origin, how many of
its cards each other seat holds and how many the stock holds, and deals that origin's
cards among those places uniformly at random: this is the uniform distribution over the
deals consistent with what the seat saw (ignoring what the other seats' choices of play
reveal, as ISMCTS's determinisations do).

Two kinds of hidden card stay where they are, because the seat knows where they went: a
card the seat held earlier in the round and nobody has seen on a pile since (it left the
seat's hand by a steal, so the seat knows the thief), and a card of a pile turned over
under ``reshuffle: flip`` (everybody saw the order of the new stock); so does another
seat's card just drawn (it must keep holding it).

The resampled stock is placed in full, in a random order (the same distribution as
placing each card when it is drawn), so the resampled state has no chance node for the
stock's cards. Its history and its information states for ``player`` are this state's;
other seats' information-state digests still describe their own past views.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...game import engine
from .chance import ChanceEvent

FIXED = -1  # the origin of a card that stays where it is


def hidden_origins(state, player: int) -> dict[int, int]:
    """Each card hidden from ``player`` (the other hands, the stock) -> its origin: the
    index of the chance event of its stock (the round's deck or a reshuffle), or
    :data:`FIXED` for a card the seat knows the place of."""
    match = state._m
    view = match.engine
    cards = view.tables.deck.cards
    hidden = 0
    for seat in range(view.players):
        if seat != player:
            hidden |= int(view.hand[0, seat])
    for card in view.stock[0, : int(view.stock_size[0])].tolist():
        hidden |= 1 << card
    events = match.events
    deck = max(i for i, event in enumerate(events) if event.kind == "deck")
    origins = {card: deck for card in range(cards) if hidden >> card & 1}
    for index in range(deck + 1, len(events)):
        event = events[index]
        if event.kind in ("shuffle", "flip"):  # not "stock": a resampler's own event
            origin = FIXED if event.kind == "flip" else index
            for card in event.pool:
                if card in origins:
                    origins[card] = origin
    held = int(view.hand[0, player])
    drawn = int(view.drawn_card[0])
    if drawn in origins:  # another seat's drawn card, which it must still hold
        origins[drawn] = FIXED
    round_now = int(view.round[0])
    link = match.trail
    while link is not None and link.seen.round == round_now:
        held |= link.seen.hands[player]
        link = link.previous
    for card, origin in origins.items():
        # A card the seat held this round that is hidden and was never on a pile since
        # the deal left its hand by a steal: the seat knows where it is.
        if held >> card & 1 and origin == deck:
            origins[card] = FIXED
    return origins


def resample(state, player: int, probability_sampler: Callable[[], float]):
    """A clone of ``state`` (at a decision) with the cards hidden from ``player`` dealt
    again within what ``player`` knows (the module's docstring)."""
    match = state._m
    if match.need is not None or match.engine is None:
        raise ValueError("resample_from_infostate needs a decision node or a finished game")
    view = match.engine
    players = view.players
    rng = np.random.default_rng(int(probability_sampler() * 2**53))
    origins = hidden_origins(state, player)
    stock = view.stock[0, : int(view.stock_size[0])].tolist()
    stock_set = set(stock)
    # Places: each other seat, and the stock (-1); per origin, the cards and their places.
    groups: dict[int, tuple[list[int], list[int]]] = {}
    for card, origin in origins.items():
        if origin == FIXED:
            continue
        if card in stock_set:
            place = -1
        else:
            place = next(s for s in range(players) if int(view.hand[0, s]) >> card & 1)
        cards, places = groups.setdefault(origin, ([], []))
        cards.append(card)
        places.append(place)
    new = view.copy()
    moved = 0
    for cards, _ in groups.values():
        for card in cards:
            moved |= 1 << card
    hands = [int(view.hand[0, seat]) & ~moved for seat in range(players)]
    new_stock = []
    for cards, places in groups.values():
        for card, place in zip(rng.permutation(cards).tolist(), places, strict=True):
            if place == -1:
                new_stock.append(card)
            else:
                hands[place] |= 1 << card
    for seat in range(players):
        new.hand[0, seat] = np.uint64(hands[seat])
    clone = state.clone()
    target = clone._m
    # The stock is all of one origin: a known flipped pile stays as it is.
    if new_stock:
        order = [int(c) for c in rng.permutation(new_stock)]  # top first
        event = ChanceEvent("stock", tuple(sorted(order)), tuple(order), 0)
        target.events.append(event)
        target.stack = len(target.events) - 1
        new.stock[0, : len(order)] = order[::-1]
    engine.refresh_legal(new)
    target.engine = new
    target.legal = None
    target.to_act = int(new.current_player[0])
    return clone
