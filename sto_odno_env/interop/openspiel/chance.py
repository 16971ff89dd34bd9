"""Chance for the OpenSpiel game: the engine's random events answered from chance actions.

The engine asks its chance source (:class:`sto_odno_env.game.chance.Chance`) for a match's
first dealer, each round's whole deck, a reshuffled stock and a stolen card. Here the
answers come from :class:`ChanceEvent` s whose outcomes chance actions placed one at a time;
where the engine reaches an outcome nobody placed, :class:`LazyChance` raises
:class:`Need` and the step is run again once the outcome is placed.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Iterable

import numpy as np

from ...game import engine
from ...game.trace import Trace


@dataclasses.dataclass(frozen=True)
class ChanceEvent:
    """One random event of the engine and the outcomes chosen for it so far.

    ``kind`` is ``dealer``, ``deck``, ``shuffle``, ``steal`` or ``flip`` (a pile turned
    over under ``reshuffle: flip``: no chance, every card known, kept for the resampler);
    ``pool`` the possible outcomes when the event happened (seats, or card ids,
    ascending); ``revealed`` the outcomes placed by chance actions, in the order the engine
    uses them (a deck or stock from its top); ``needed`` how many the engine needs at once
    (a deck: the cards dealt).
    """

    kind: str
    pool: tuple[int, ...]
    revealed: tuple[int, ...] = ()
    needed: int = 1

    def remaining(self) -> tuple[int, ...]:
        """The outcomes not placed yet, ascending."""
        return self._remaining

    @functools.cached_property
    def _remaining(self) -> tuple[int, ...]:
        # Cached: a chance node asks for its outcomes, then checks the one applied.
        placed = set(self.revealed)
        return tuple(value for value in self.pool if value not in placed)

    @functools.cached_property
    def outcomes(self) -> tuple[tuple[int, float], ...]:
        """The open outcomes with their probabilities, each equally likely."""
        remaining = self._remaining
        return tuple(zip(remaining, itertools.repeat(1.0 / len(remaining))))

    @property
    def left(self) -> int:
        """How many outcomes are not placed yet."""
        return len(self.pool) - len(self.revealed)

    def order(self) -> list[int]:
        """The placed outcomes, then the others ascending (never looked at by the engine)."""
        return [*self.revealed, *self.remaining()]

    def placed(self, outcome: int) -> ChanceEvent:
        """This event with one more outcome placed."""
        outcome = int(outcome)
        event = ChanceEvent(self.kind, self.pool, (*self.revealed, outcome), self.needed)
        if "_remaining" in self.__dict__:  # the open outcomes known: one fewer, in order
            left = list(self._remaining)
            left.remove(outcome)
            event.__dict__["_remaining"] = tuple(left)
        return event

    def __deepcopy__(self, memo: dict) -> ChanceEvent:
        return self  # frozen: a cloned state shares it


class Need(Exception):
    """The engine asked for an outcome of event ``index`` that no chance action placed;
    ``wanted``: how many of the event's outcomes the step used (when known, else the
    event's ``needed``), all placed before the step runs again."""

    def __init__(self, index: int, wanted: int | None = None):
        super().__init__(index)
        self.index = index
        self.wanted = wanted


class RoundsOver(Exception):
    """The engine asked for the deck of a round beyond the game's ``rounds``."""


class LazyChance:
    """The engine's chance source answered from :class:`ChanceEvent` s, raising
    :class:`Need` where an outcome is still open.

    ``events`` is the match's list (new events are appended to it); ``first`` the index of
    the first event this step can meet; ``stack`` the event that holds the stock now;
    ``rounds`` the most rounds the game deals (0: no limit).
    Before each new event, the cards drawn from the current stock are checked to be placed
    ones: so everything the engine did up to an event used placed outcomes only, and the
    events it appends are the game's own. ``trace`` (only under ``reshuffle: flip``) tells
    when the pile was turned over, which asks chance nothing.
    """

    __slots__ = ("events", "flips", "next", "rounds", "stack", "trace")  # one per step

    def __init__(
        self,
        events: list[ChanceEvent],
        first: int,
        stack: int | None,
        trace: Trace | None,
        rounds: int,
    ):
        self.events = events
        self.next = first
        self.stack = stack
        self.trace = trace
        self.flips = 0
        self.rounds = rounds

    def check(self, state: engine.State) -> None:
        """Raise :class:`Need` if the stock's drawn cards go beyond the placed ones."""
        if self.trace is not None:
            self._note_flips(state)
        if self.stack is None:
            return
        event = self.events[self.stack]
        drawn = len(event.pool) - int(state.stock_size[0])
        if drawn > len(event.revealed):
            # Every card the step drew is placed before it runs again (a penalty of two
            # cards: one re-run, not two). Should the placed cards make the step draw
            # fewer, the extra ones are placed ahead, as the next top card always is.
            raise Need(self.stack, drawn)

    def _note_flips(self, state: engine.State) -> None:
        # Under ``reshuffle: flip`` the pile is turned over without asking chance: the old
        # stock was drawn to its end, and the new one is known to everybody.
        assert self.trace is not None  # a flip rule set's match is always traced
        flips = [e for e in self.trace.current[0] if e["type"] == "reshuffle"]
        while len(flips) > self.flips:
            if self.stack is not None:
                event = self.events[self.stack]
                if len(event.revealed) < len(event.pool):
                    raise Need(self.stack)
            stock = [int(card) for card in flips[self.flips]["stock"]]
            index = self.next
            self.next += 1
            if index == len(self.events):
                # The trace lists the new stock top first, the order it is drawn in.
                self.events.append(ChanceEvent("flip", tuple(sorted(stock)), tuple(stock), 0))
            self.flips += 1
            self.stack = index

    def _event(self, kind: str, pool: Iterable[int], needed: int) -> tuple[int, ChanceEvent]:
        index = self.next
        self.next += 1
        if index == len(self.events):
            self.events.append(ChanceEvent(kind, tuple(sorted(int(v) for v in pool)), (), needed))
        event = self.events[index]
        if event.kind != kind:  # the engine is deterministic given the placed outcomes
            raise RuntimeError(f"chance event {index} was a {event.kind}, now a {kind}")
        if len(event.revealed) < event.needed:
            raise Need(index)
        return index, event

    def first_dealer(self, state: engine.State, games: np.ndarray) -> np.ndarray:
        _, event = self._event("dealer", range(state.players), 1)
        return np.array([event.revealed[0]], dtype=np.int8)

    def deck(self, state: engine.State, games: np.ndarray) -> np.ndarray:
        self.check(state)
        if self.rounds and self.next == len(self.events):
            dealt = sum(event.kind == "deck" for event in self.events)
            if dealt >= self.rounds:
                raise RoundsOver
        tables = state.tables
        dealt = int(np.bitwise_count(state.in_match[games[0]])) * tables.hand_size
        index, event = self._event("deck", range(tables.deck.cards), dealt)
        self.stack = index
        return np.array([event.order()], dtype=np.int8)

    def shuffle(
        self, state: engine.State, games: np.ndarray, cards: np.ndarray, counts: np.ndarray
    ) -> np.ndarray:
        self.check(state)
        count = int(counts[0])
        # The new stock is reshuffled because a card is drawn from it: its top card is
        # needed before the step can go on (asked now, not after the step has run on
        # without it, which cost a whole step again for every reshuffle).
        index, event = self._event("shuffle", cards[0, :count].tolist(), min(count, 1))
        self.stack = index
        stock = np.full((1, state.tables.deck.cards), -1, dtype=np.int8)
        stock[0, :count] = event.order()[::-1]  # a stack: the top card last
        return stock

    def steal(
        self, state: engine.State, games: np.ndarray, drawer: np.ndarray, victim: np.ndarray
    ) -> np.ndarray:
        self.check(state)
        hand = int(state.hand[games[0], victim[0]])
        pool = [card for card in range(state.tables.deck.cards) if hand >> card & 1]
        _, event = self._event("steal", pool, 1)
        return np.array([event.revealed[0]], dtype=np.int8)


def fill_stock(state: engine.State, event: ChanceEvent, written: int = 0) -> None:
    """Put the stack's cards placed after its first ``written`` (those are in place) at
    their places in the stock, each swapped with the card there: the undrawn part keeps
    holding the same cards, the placed ones in order, the others anywhere (never read)."""
    if len(event.revealed) <= written:  # nothing placed since: most steps
        return
    top = len(event.pool)
    row = state.stock[0]
    cards = row[:top].tolist()
    for index in range(written, len(event.revealed)):
        # The index-th card drawn from the stack is at position top - 1 - index.
        card, place = event.revealed[index], top - 1 - index
        found = cards.index(card)
        if found != place:
            cards[found], cards[place] = cards[place], card
            row[found], row[place] = cards[found], card
