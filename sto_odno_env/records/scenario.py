"""Hand-made deals and a one-game driver, for scenario tests and examples.

Build a deal by naming each seat's cards; the deck order that deals them is worked out
from the dealing rule (docs/rules.md §3)::

    game = Game("classic", players=2, dealer=1,
                hands={0: "6♦ 9♣ J♠ 6♥ 8♥", 1: "Q♥ 10♣ 7♦ 9♥"},
                opening="9♦", stock="A♥ J♥")
    game.legal()          # {'play 6♦', 'draw'}
    game.play("6♦")       # the penalty and skip of the 6 resolve by themselves
    game.hand(1)          # [...]

Later decks, reshuffles and steals can be scripted too (``decks=``, ``shuffles=``,
``steals=``); whatever is not scripted comes from the game's random stream.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..game import engine
from ..game.cards import SUIT_SYMBOLS, Deck, action_name, card_name
from ..game.cards import parse_card as _parse_card
from ..game.rules import Rules, load_rules

CardsSpec = str | Sequence[int | str]


def cards_of(spec: CardsSpec, deck: Deck | int | None = None) -> list[int]:
    """Card ids from ``"Q♠ 10h"`` or a list of ids/names (of ``deck``, 36 cards by default)."""
    if isinstance(spec, str):
        return [_parse_card(token, deck) for token in spec.replace(",", " ").split()]
    return [_parse_card(card, deck) for card in spec]


def deck_for(
    rules: Rules,
    players: int,
    dealer: int,
    hands: Mapping[int, CardsSpec],
    opening: CardsSpec | None = None,
    stock: CardsSpec = "",
    seats_in: Sequence[int] | None = None,
) -> list[int]:
    """The deck (top first) that deals ``hands`` with ``dealer`` dealing.

    Under ``dealer_blind`` the dealer's hand has ``hand_size - 1`` cards and ``opening`` is
    the dealer's last dealt card; ``stock`` lists the stock's top cards, and the unnamed
    cards follow them in id order.
    """
    deck_spec = rules.deck_spec
    seats = list(range(players)) if seats_in is None else sorted(seats_in)
    order = [seats[(seats.index(dealer) + 1 + i) % len(seats)] for i in range(len(seats))]
    size = rules.hand_size
    blind = rules.opening == "dealer_blind"
    per_seat = {}
    for seat in seats:
        cards = cards_of(hands.get(seat, ""), deck_spec)
        want = size - 1 if blind and seat == dealer else size
        if len(cards) != want:
            raise ValueError(f"seat {seat} needs {want} cards, got {len(cards)}")
        per_seat[seat] = cards
    if blind:
        if opening is None:
            raise ValueError("dealer_blind needs an opening card")
        per_seat[dealer] = per_seat[dealer] + cards_of(opening, deck_spec)
    elif opening is not None:
        raise ValueError("leader_plays has no opening card")
    deck = []
    for j in range(size * len(seats)):
        seat = order[j % len(seats)]
        deck.append(per_seat[seat][j // len(seats)])
    deck += cards_of(stock, deck_spec)
    if len(set(deck)) != len(deck):
        raise ValueError("a card is dealt twice")
    deck += [card for card in range(deck_spec.cards) if card not in deck]
    return deck


class ScriptedChance(engine.RandomChance):
    """Chance events from scripts, falling back to the game's random stream."""

    def __init__(
        self,
        decks: Sequence[Sequence[int]] = (),
        dealers: Sequence[int] = (),
        shuffles: Sequence[CardsSpec] = (),
        steals: Sequence[CardsSpec | int] = (),
        deck: Deck | int | None = None,
    ):
        self.decks = [list(cards) for cards in decks]
        self.dealers = list(dealers)
        self.shuffles = [cards_of(s, deck) for s in shuffles]
        self.steals = [cards_of(s, deck)[0] if not isinstance(s, int) else s for s in steals]

    def deck(self, state, games):
        if self.decks:
            return np.array([self.decks.pop(0)], dtype=np.int8)
        return super().deck(state, games)

    def first_dealer(self, state, games):
        if self.dealers:
            return np.array([self.dealers.pop(0)], dtype=np.int8)
        return super().first_dealer(state, games)

    def shuffle(self, state, games, cards, counts):
        if self.shuffles:
            stock = self.shuffles.pop(0)
            pile = sorted(cards[0, : counts[0]].tolist())
            if sorted(stock) != pile:
                raise ValueError(f"scripted shuffle {stock} is not the pile {pile}")
            row = np.full((1, state.tables.deck.cards), -1, dtype=np.int8)
            row[0, : len(stock)] = stock[::-1]  # a stack: the top card last
            return row
        return super().shuffle(state, games, cards, counts)

    def steal(self, state, games, drawer, victim):
        if self.steals:
            return np.array([self.steals.pop(0)], dtype=np.int8)
        return super().steal(state, games, drawer, victim)


class Game:
    """One game driven decision by decision, with readable helpers.

    ``events`` holds the record events (docs/rules.md §10) so far; ``state`` is the batch-of-one
    engine state.
    """

    def __init__(
        self,
        rules: Rules | str = "classic",
        players: int = 2,
        *,
        dealer: int = 0,
        hands: Mapping[int, CardsSpec] | None = None,
        opening: CardsSpec | None = None,
        stock: CardsSpec = "",
        deck: Sequence[int] | None = None,
        decks: Sequence[Sequence[int]] = (),
        shuffles: Sequence[CardsSpec] = (),
        steals: Sequence[CardsSpec | int] = (),
        seed: int = 0,
        **rule_changes: Any,
    ):
        rules = load_rules(rules)
        if rule_changes:
            rules = rules.replace(**rule_changes)
        self.rules = rules
        self.deck = rules.deck_spec
        first = []
        if deck is not None:
            first = [list(cards_of(deck, self.deck) if isinstance(deck, str) else deck)]
        elif hands is not None:
            first = [deck_for(rules, players, dealer, hands, opening, stock)]
        self.chance = ScriptedChance(
            decks=first + [list(d) for d in decks],
            dealers=[dealer],
            shuffles=shuffles,
            steals=steals,
            deck=self.deck,
        )
        self.trace = engine.Trace(1)
        self.state = engine.init(
            rules, players, 1, seeds=[seed], chance=self.chance, trace=self.trace
        )

    # --- reading -------------------------------------------------------------------------

    @property
    def events(self) -> list[dict[str, Any]]:
        return self.trace.current[0]

    def actions(self, kind: str | None = None) -> list[dict[str, Any]]:
        """Action events so far (``kind``: only forced or only chosen ones)."""
        events = [e for e in self.events if e["type"] == "action"]
        if kind == "forced":
            return [e for e in events if e["forced"]]
        if kind == "chosen":
            return [e for e in events if not e["forced"]]
        return events

    def legal(self) -> set[str]:
        """Names of the legal actions of the player to act."""
        bits = int(self.state.legal_bits[0])
        return {action_name(a, self.deck) for a in range(self.rules.num_actions) if bits >> a & 1}

    def hand(self, seat: int) -> list[str]:
        bits = int(self.state.hand[0, seat])
        return [card_name(c, self.deck) for c in range(self.deck.cards) if bits >> c & 1]

    def hand_size(self, seat: int) -> int:
        return int(self.state.hand[0, seat]).bit_count()

    @property
    def player(self) -> int:
        return int(self.state.current_player[0])

    @property
    def phase(self) -> str:
        return engine.PHASE_NAMES[self.state.phase[0]]

    @property
    def top(self) -> str | None:
        top = int(self.state.top_card[0])
        return None if top == self.deck.no_card else card_name(top, self.deck)

    @property
    def ordered_suit(self) -> str | None:
        suit = int(self.state.ordered_suit[0])
        return None if suit < 0 else SUIT_SYMBOLS[suit]

    @property
    def stock(self) -> list[str]:
        """Stock cards, top first."""
        size = int(self.state.stock_size[0])
        return [card_name(int(c), self.deck) for c in self.state.stock[0, :size][::-1]]

    @property
    def discard(self) -> list[str]:
        size = int(self.state.discard_size[0])
        return [card_name(int(c), self.deck) for c in self.state.discard[0, :size]]

    @property
    def totals(self) -> list[int]:
        return [int(t) for t in self.state.totals[0]]

    @property
    def done(self) -> bool:
        return bool(self.state.done[0])

    def last(self, kind: str) -> dict[str, Any] | None:
        """The last event of a type (``round_end``, ``match_end``, ...)."""
        for event in reversed(self.events):
            if event["type"] == kind:
                return event
        return None

    # --- acting --------------------------------------------------------------------------

    def act(self, action: int) -> Game:
        engine.step(self.state, np.array([action]), chance=self.chance, trace=self.trace)
        return self

    def play(self, card: str | int) -> Game:
        return self.act(_parse_card(card, self.deck))

    def order(self, suit: str) -> Game:
        symbols = {"♠": 0, "S": 0, "♣": 1, "C": 1, "♦": 2, "D": 2, "♥": 3, "H": 3}
        return self.act(self.deck.order_base + symbols[suit.upper() if suit.isascii() else suit])

    def draw(self) -> Game:
        return self.act(self.deck.draw)

    def pass_(self) -> Game:
        return self.act(self.deck.pass_)

    def call(self) -> Game:
        """The last-card call (``last_card_call``, docs/rules.md §12)."""
        return self.act(self.deck.call)
