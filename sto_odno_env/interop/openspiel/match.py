"""One match as the OpenSpiel state holds it: the engine's states, the chance events, the
decisions taken, the actions applied.

Every attribute of a :class:`Match` is either immutable (engine states once reached are
never changed again: each step runs on a copy) or a list copied on :meth:`Match.copy`, so
a clone costs a few list copies. A match pickles as its parameters and its actions, and
unpickles by playing them again (OpenSpiel's serialisation pickles a state's attributes).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from typing import Any

import numpy as np

from ...game import engine
from ...game.rules import Rules, load_rules
from ...game.trace import Trace
from .chance import ChanceEvent, LazyChance, Need, RoundsOver, fill_stock
from .text import Seen, seen, seen_action, seen_text


@dataclasses.dataclass(frozen=True, eq=False)
class Facts:
    """What every state of one game shares: its parameters, rule set, player count and deck."""

    params: tuple[tuple[str, Any], ...]  # (("players", P), ("rounds", R), ("rules", name))
    rules: Rules
    players: int
    rounds: int  # rounds the game lasts; 0: the whole match

    @property
    def deck(self):
        """The rule set's deck (``rules.deck_spec``)."""
        return self.rules.deck_spec

    @functools.cached_property
    def dealer_event(self) -> ChanceEvent:
        """The first chance event of every match: the first dealer."""
        return ChanceEvent("dealer", tuple(range(self.players)))

    @functools.cached_property
    def flip(self) -> bool:
        """The pile is turned over, not shuffled (the match is traced to see when)."""
        return self.rules.reshuffle == "flip"

    def __deepcopy__(self, memo: dict) -> Facts:
        return self


@functools.lru_cache(maxsize=64)
def facts_of(rules: str, players: int, rounds: int) -> Facts:
    """The :class:`Facts` of the game with these parameters (checked)."""
    loaded = load_rules(rules)
    loaded.check_players(players)
    if rounds < 0:
        raise ValueError(f"rounds must be 0 (the whole match) or more, got {rounds}")
    params = (("players", int(players)), ("rounds", int(rounds)), ("rules", rules))
    return Facts(params, loaded, int(players), int(rounds))


class Decision:
    """A decision taken (a link of the trail): what the seats saw when it was taken
    (:class:`~.text.Seen`), by whom, which action, and the decision before it. Never changed
    once made (its digest cache only fills)."""

    # A plain slotted class: one is made per decision, and a frozen dataclass's __init__
    # cost several times as much.
    __slots__ = ("action", "digests", "player", "previous", "seen")

    def __init__(self, seen: Seen, player: int, action: int, previous: Decision | None) -> None:
        self.seen = seen
        self.player = player
        self.action = action
        self.previous = previous
        # seat -> digest, made on first use (most decisions of a search never need one)
        self.digests: dict[int, str] | None = None

    def line(self, seat: int) -> str:
        """What ``seat`` saw at this decision, and the action taken."""
        return f"{seen_text(self.seen, seat)} => seat {self.player}: " + seen_action(
            self.action, self.seen
        )

    def digest(self, seat: int) -> str:
        """A digest of ``seat``'s lines up to this decision (computed on first use, once
        per link: a search that never asks for information states never pays for them)."""
        pending: list[Decision] = []
        link: Decision | None = self
        while link is not None and (link.digests is None or seat not in link.digests):
            pending.append(link)
            link = link.previous
        before = link.digests[seat] if link is not None and link.digests is not None else ""
        for link in reversed(pending):
            text = f"{before}\n{link.line(seat)}".encode()
            before = hashlib.blake2b(text, digest_size=16).hexdigest()
            if link.digests is None:
                link.digests = {}
            link.digests[seat] = before
        return before

    def chain(self) -> list[Decision]:
        """The trail up to this decision, oldest first."""
        links: list[Decision] = []
        link: Decision | None = self
        while link is not None:
            links.append(link)
            link = link.previous
        return links[::-1]

    def __deepcopy__(self, memo: dict) -> Decision:
        return self  # never changed once made (the digest cache only fills)


@dataclasses.dataclass(frozen=True, eq=False)
class Steps:
    """The record events of the engine's steps so far, as a chain of one step's events."""

    events: tuple[dict[str, Any], ...]
    previous: Steps | None

    def all(self) -> list[dict[str, Any]]:
        """Every event so far, in order."""
        chunks: list[tuple[dict[str, Any], ...]] = []
        link: Steps | None = self
        while link is not None:
            chunks.append(link.events)
            link = link.previous
        return [event for chunk in reversed(chunks) for event in chunk]


# The stock's top cards placed by chance before they are drawn (Match._place_ahead).
PLACED_AHEAD = 2


def _action_arrays() -> tuple[np.ndarray, ...]:
    """A step's action as the engine takes it, one read-only array per action id (every
    id fits a byte): made once, not at every step."""
    arrays = []
    for action in range(256):
        array = np.array([action])
        array.flags.writeable = False
        arrays.append(array)
    return tuple(arrays)


ACTION_ARRAYS = _action_arrays()


def _bits(mask: int) -> tuple[int, ...]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


class Match:
    """The match behind one OpenSpiel state (see the module's docstring).

    ``traced`` matches keep the engine's record events (for :func:`record_events`); others
    do not pay for them.
    """

    __slots__ = (
        "actions",
        "ahead",
        "done",
        "engine",
        "events",
        "facts",
        "legal",
        "log",
        "need",
        "over",
        "pending",
        "returns",
        "snap",
        "snap_events",
        "snap_stack",
        "snap_written",
        "stack",
        "stack_written",
        "to_act",
        "traced",
        "trail",
        "wanted",
    )

    def __init__(self, facts: Facts, traced: bool = False):
        self.facts = facts
        self.events: list[ChanceEvent] = [facts.dealer_event]
        self.snap: engine.State | None = None  # before the pending decision; None: undealt
        self.snap_events = 0
        self.snap_stack: int | None = None
        self.snap_written = 0  # the stack's placed cards already in the snapshot's stock
        self.pending = 0
        self.need: int | None = 0  # the event a chance node places an outcome of
        self.wanted = 1  # the outcomes of that event placed before the engine runs again
        self.engine: engine.State | None = None  # the state at a decision, or at the end
        self.stack: int | None = None  # the event that holds the stock
        self.stack_written = 0  # its placed cards in the reached state's stock
        self.returns: tuple[float, ...] = (0.0,) * facts.players
        self.trail: Decision | None = None
        self.actions: list[int] = []
        self.over = False  # ended by the game's ``rounds``
        self.done = False
        self.to_act = 0
        self.legal: tuple[int, ...] | None = None
        self.traced = traced
        self.log: Steps | None = None
        self.ahead = False  # the chance node places the stock's next card after a step

    def copy(self) -> Match:
        """An independent match in the same position (engine states and links shared)."""
        new = Match.__new__(Match)
        for name in Match.__slots__:
            setattr(new, name, getattr(self, name))
        new.events = self.events.copy()
        new.actions = self.actions.copy()
        return new

    def __deepcopy__(self, memo: dict) -> Match:
        return self.copy()

    def __reduce__(self):
        # The parameters and the actions only (a byte each: every id, card or seat is below
        # 256): unpickling plays them again.
        return replay, (dict(self.facts.params), bytes(self.actions), self.traced)

    # The engine, run until it needs an outcome nobody placed or reaches a decision.

    def _attempt(self) -> tuple[engine.State, LazyChance, np.ndarray, Trace | None, bool]:
        facts = self.facts
        trace = Trace(1) if facts.flip or self.traced else None
        flips = trace if facts.flip else None
        chance = LazyChance(self.events, self.snap_events, self.snap_stack, flips, facts.rounds)
        over = False
        if self.snap is None:
            state = engine.init(facts.rules, facts.players, seeds=[0], chance=chance, trace=trace)
            rewards = np.zeros(facts.players, dtype=np.float32)
        else:
            state = self.snap.copy()
            if self.snap_stack is not None:
                fill_stock(state, self.events[self.snap_stack], self.snap_written)
            try:
                _, rewards, _ = engine.step(
                    state, ACTION_ARRAYS[self.pending], chance=chance, trace=trace
                )
                rewards = rewards[0]
            except RoundsOver:
                # The next round would be dealt: the round is scored, the game is over.
                rewards, over = state.rewards[0].copy(), True
        chance.check(state)
        return state, chance, rewards, trace, over

    def advance(self) -> None:
        """Run the engine from the snapshot to the next decision, or to the chance node of
        the first outcome it needs that is not placed."""
        while True:
            try:
                state, chance, rewards, trace, over = self._attempt()
            except Need as need:
                event = self.events[need.index]
                remaining = event.remaining()
                if len(remaining) == 1:  # one outcome left: no chance node
                    self.events[need.index] = event.placed(remaining[0])
                    continue
                self.need = need.index
                self.wanted = event.needed if need.wanted is None else need.wanted
                return
            break
        self.need = None
        self.engine = state
        self.stack = chance.stack
        # Every card the stack had placed when this attempt ran is in the state's stock:
        # written at the attempt's start, or with a new stock (deck, shuffle, flip).
        self.stack_written = 0 if chance.stack is None else len(self.events[chance.stack].revealed)
        self.over = over
        self.to_act = int(state.current_player[0])
        self.done = over or self.to_act == engine.NOBODY  # NOBODY acts once a match is over
        # Rewards and points come at a round's or the match's end only.
        if self.done or state.rounds_ended[0]:
            if self.facts.rounds:  # the kit's round reward: minus the round's points / target
                rewards = rewards - state.round_points[0] / self.facts.rules.target
            self.returns = tuple(
                total + float(gain) for total, gain in zip(self.returns, rewards, strict=True)
            )
        if self.traced:
            assert trace is not None  # a traced match steps with its trace
            self.log = Steps(tuple(trace.current[0]), self.log)
        self.legal = None
        self._place_ahead(state)

    def _place_ahead(self, state: engine.State) -> None:
        # The stock's top cards are placed before they are drawn, PLACED_AHEAD of them:
        # the same distribution (each card uniform over those left, nobody sees it), and
        # a step that draws finds its cards placed instead of abandoning the step to ask
        # for them and running it again (that re-run was a third of the engine's work;
        # with one card ahead, a draw followed by a forced draw still ran twice).
        if self.done or self.stack is None:
            return
        event = self.events[self.stack]
        wanted = min(len(event.pool) - int(state.stock_size[0]) + PLACED_AHEAD, len(event.pool))
        while len(event.revealed) < wanted:
            if event.left > 1:  # a chance node for the next card
                self.need, self.wanted, self.ahead = self.stack, wanted, True
                return
            event = event.placed(event.remaining()[0])
            self.events[self.stack] = event

    def _reached(self) -> engine.State:
        """The engine state at the decision waiting now (set once the match started)."""
        if self.engine is None:
            raise RuntimeError("the match has not reached a decision yet")
        return self.engine

    def legal_actions(self) -> tuple[int, ...]:
        """The legal actions of the seat to act, ascending."""
        if self.legal is None:
            self.legal = _bits(int(self._reached().legal_bits[0]))
        return self.legal

    def apply(self, action: int) -> None:
        """Place a chance outcome, or take a decision."""
        action = int(action)
        if self.need is not None:
            event = self.events[self.need]
            if action not in event.remaining():
                raise ValueError(
                    f"chance outcome {action} is not open for this {event.kind}; open: "
                    f"{event.remaining()}"
                )
            self.actions.append(action)
            event = event.placed(action)
            self.events[self.need] = event
            # A deal needs all its cards before the engine can go on, a draw of several
            # cards all of them, the stock its top cards placed ahead: ask for the next.
            while len(event.revealed) < self.wanted:
                remaining = event.remaining()
                if len(remaining) > 1:
                    return
                event = event.placed(remaining[0])
                self.events[self.need] = event
            if self.ahead:  # the engine has reached its decision already
                self.need = None
                self.ahead = False
                return
            self.advance()
            return
        if self.done:
            raise ValueError("the game is over")
        reached = self._reached()
        if not int(reached.legal_bits[0]) >> action & 1 or action < 0:
            raise engine.IllegalActionError(engine.illegal_message(reached, 0, action))
        self.actions.append(action)
        self.trail = Decision(seen(reached), self.to_act, action, self.trail)
        self.snap = self.engine
        self.snap_events = len(self.events)
        self.snap_stack = self.stack
        self.snap_written = self.stack_written
        self.pending = action
        self.advance()

    @property
    def view(self) -> engine.State | None:
        """The last engine state reached (before the pending decision at a chance node
        that a step waits on)."""
        return self.engine if self.need is None or self.ahead else self.snap


def replay(params: dict[str, Any], data: bytes, traced: bool = False) -> Match:
    """The match of a game with ``params`` after the actions ``data`` (as pickled)."""
    facts = facts_of(str(params["rules"]), int(params["players"]), int(params["rounds"]))
    match = Match(facts, traced)
    for action in data:
        match.apply(action)
    return match
