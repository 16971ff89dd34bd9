"""101 as an OpenSpiel game: ``pyspiel.load_game("python_sto_odno", {"rules": R, "players": P})``.

Importing this module registers the game with ``pyspiel`` (the ``openspiel`` extra installs
it). ``rules`` is a preset name or a rule-set YAML path, ``players`` any count the rule set
allows. The kit's engine plays every rule; this module only asks it.

**Chance.** Every random event is an explicit chance node with its exact distribution. The
engine asks its chance source (:class:`sto_odno_env.game.chance.Chance`) for a match's first
dealer, each round's whole deck, a reshuffled stock and a stolen card; here those answers
are built from OpenSpiel's chance actions, one card at a time:

- the first dealer: one node, uniform over the seats;
- a round's deck: one node per card *as it leaves the deck*, uniform over the cards of the
  deck not yet placed. The dealt cards (and the opening card) are placed when the round is
  dealt; a stock card is placed only when someone draws it, so a card nobody draws is never
  chosen. Placing the cards of a shuffled deck in any order, each uniform over the cards
  left, gives every order of the deck the same probability ``1/N!``: this is the deck's
  exact distribution, with the unseen rest of the stock left undecided;
- a reshuffle: the same, over the pile's cards, as they are drawn from the new stock;
- a steal: one node, uniform over the victim's cards.

A node with a single outcome (the last card of a stock) is applied without a chance node.
The engine is batched numpy; a state here holds a batch of one game. When the engine asks
for a card that no chance action has placed yet, the step is abandoned (it runs on a copy),
the state becomes a chance node for that card, and the step is run again from its start with
the card placed: the engine stays the one rules path.

**Views.** The observation (string and tensor) is what the seat sees now: the tensor is the
kit's observation vector (:func:`sto_odno_env.views.observation.observe_one`). The
information state string is perfect recall: the seat's view now, then a 128-bit digest
(BLAKE2b) of its view at every decision so far with the action taken there (the lines
themselves would make the string grow with the match, and OpenSpiel's tabular algorithms
use it as a key). The information state tensor is the observation followed by a
memory of the current round: the cards each seat (counted clockwise from the observer) has
played in it, and the cards the observer has held in it (a summary, not perfect recall).

**Utility.** The kit's match reward: +1 for the winner to −1 for the last place, linear in
the place, ties shared; a truncated match gives nothing to those still in. Zero-sum at two
players; general-sum otherwise (an elimination is rewarded before a later truncation).

**Records.** :func:`record_events` turns a state's history into a kit record (docs/rules.md
§10) that :mod:`sto_odno_env.records.replay` checks, and :func:`state_from_record` plays a
kit record's match through this game.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from ..game import engine
from ..game.cards import PHASE_AFTER_DRAW, PHASE_DONE, PHASE_NAMES, SUIT_SYMBOLS
from ..game.cards import card_name as _card_name
from ..game.rule_values import MAX_PLAYERS, MIN_PLAYERS
from ..game.rules import Rules, load_rules
from ..game.trace import Trace
from ..views.observation import obs_size, observe_one
from ..views.text import Plain, action_text, seat_view

GAME_NAME = "python_sto_odno"
DEFAULT_PARAMS = {"rules": "classic", "players": 4}
MAX_ROUNDS = 64  # the rounds counted in max_game_length (a bound OpenSpiel asks for)


# --- chance -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ChanceEvent:
    """One random event of the engine and the outcomes chosen for it so far.

    ``kind`` is ``dealer``, ``deck``, ``shuffle`` or ``steal``; ``pool`` the possible outcomes
    when the event happened (seats, or card ids, ascending); ``revealed`` the outcomes placed
    by chance actions, in the order the engine uses them (a deck or stock from its top);
    ``needed`` how many the engine needs at once (a deck: the cards dealt).
    """

    kind: str
    pool: tuple[int, ...]
    revealed: tuple[int, ...] = ()
    needed: int = 1

    def remaining(self) -> list[int]:
        """The outcomes not placed yet, ascending."""
        placed = set(self.revealed)
        return [value for value in self.pool if value not in placed]

    def order(self) -> list[int]:
        """The placed outcomes, then the others ascending (never looked at by the engine)."""
        return [*self.revealed, *self.remaining()]

    def placed(self, outcome: int) -> ChanceEvent:
        """This event with one more outcome placed."""
        return dataclasses.replace(self, revealed=(*self.revealed, int(outcome)))

    def __deepcopy__(self, memo: dict) -> ChanceEvent:
        return self  # frozen: a cloned state shares it


class _Need(Exception):
    """The engine asked for an outcome of event ``index`` that no chance action placed."""

    def __init__(self, index: int):
        super().__init__(index)
        self.index = index


class LazyChance:
    """The engine's chance source (:class:`sto_odno_env.game.chance.Chance`) answered from
    :class:`ChanceEvent` s, raising :class:`_Need` where an outcome is still open.

    ``events`` is the state's list (new events are appended to it); ``first`` the index of
    the first event this step can meet; ``stack`` the event that holds the stock now. Before
    each new event, the cards drawn from the current stock are checked to be placed ones:
    so everything the engine did up to an event used placed outcomes only, and the events
    it appends are the game's own.
    """

    def __init__(
        self, events: list[ChanceEvent], first: int, stack: int | None, trace: Trace, flip: bool
    ):
        self.events = events
        self.next = first
        self.stack = stack
        self.trace = trace
        self.flip = flip
        self.flips = 0

    def check(self, state: engine.State) -> None:
        """Raise :class:`_Need` if the stock's drawn cards go beyond the placed ones."""
        if self.stack is None:
            return
        if self.flip:
            # Under ``reshuffle: flip`` the pile is turned over without asking chance: the
            # stock was drawn to its end, and the new one is known to everybody.
            flips = sum(event["type"] == "reshuffle" for event in self.trace.current[0])
            if flips > self.flips:
                event = self.events[self.stack]
                if len(event.revealed) < len(event.pool):
                    raise _Need(self.stack)
                self.flips = flips
                self.stack = None
                return
        event = self.events[self.stack]
        drawn = len(event.pool) - int(state.stock_size[0])
        if drawn > len(event.revealed):
            raise _Need(self.stack)

    def _event(self, kind: str, pool: Iterable[int], needed: int) -> tuple[int, ChanceEvent]:
        index = self.next
        self.next += 1
        if index == len(self.events):
            self.events.append(ChanceEvent(kind, tuple(sorted(int(v) for v in pool)), (), needed))
        event = self.events[index]
        if event.kind != kind:  # the engine is deterministic given the placed outcomes
            raise RuntimeError(f"chance event {index} was a {event.kind}, now a {kind}")
        if len(event.revealed) < event.needed:
            raise _Need(index)
        return index, event

    def first_dealer(self, state: engine.State, games: np.ndarray) -> np.ndarray:
        _, event = self._event("dealer", range(state.players), 1)
        return np.array([event.revealed[0]], dtype=np.int8)

    def deck(self, state: engine.State, games: np.ndarray) -> np.ndarray:
        self.check(state)
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
        index, event = self._event("shuffle", cards[0, :count].tolist(), 0)
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


def _fill_stock(state: engine.State, event: ChanceEvent) -> None:
    """Write the stock's cards as now placed (the undrawn ones in any order: never read)."""
    order = event.order()
    state.stock[0, : len(order)] = order[::-1]


# --- text ----------------------------------------------------------------------------------------


def seat_text(state: engine.State, seat: int) -> str:
    """What ``seat`` sees now, on one line (no hidden card enters it)."""
    deck = state.tables.deck
    cards = deck.cards
    phase = int(state.phase[0])
    parts = [f"seat {seat}", f"round {int(state.round[0]) + 1}"]
    if phase == PHASE_DONE:
        parts.append("match over")
    else:
        actor = int(state.current_player[0])
        parts.append(f"to act: seat {actor} ({PHASE_NAMES[phase]})")
    top = int(state.top_card[0])
    parts.append(f"top {_card_name(top, deck) if top != deck.no_card else '-'}")
    if int(state.ordered_suit[0]) >= 0:
        parts.append(f"ordered {SUIT_SYMBOLS[int(state.ordered_suit[0])]}")
    if int(state.pending[0]):
        parts.append(f"pending {int(state.pending[0])}")
    parts.append(f"stock {int(state.stock_size[0])}")
    names = Plain(deck)
    parts.append(f"pile {names.hand(int(state.discard_bits[0]))}")
    parts.append(f"hand {names.hand(int(state.hand[0, seat]))}")
    drawn = int(state.drawn_card[0])
    if phase == PHASE_AFTER_DRAW and seat == int(state.current_player[0]) and drawn < cards:
        parts.append(f"drawn {_card_name(drawn, deck)}")
    counts = [int(np.bitwise_count(state.hand[0, p])) for p in range(state.players)]
    ins = [p for p in range(state.players) if int(state.in_match[0]) >> p & 1]
    parts.append(
        "cards "
        + " ".join(f"s{p}:{counts[p]}" if p in ins else f"s{p}:out" for p in range(len(counts)))
    )
    parts.append("totals " + " ".join(f"s{p}:{int(t)}" for p, t in enumerate(state.totals[0])))
    return "; ".join(parts)


# --- the game ------------------------------------------------------------------------------------


def _game_type(players: int) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="101 (sto-odno kit)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM
            if players == 2
            else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=MIN_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(DEFAULT_PARAMS),
    )


class StoOdnoGame(pyspiel.Game):
    """101 under one rule set at one player count (``params``: ``rules``, ``players``)."""

    def __init__(self, params: dict[str, Any] | None = None):
        params = {**DEFAULT_PARAMS, **(params or {})}
        rules = load_rules(params["rules"])
        players = params["players"]
        rules.check_players(players)
        self.rules: Rules = rules
        self.players = int(players)
        self.deck = rules.deck_spec
        cards = self.deck.cards
        # A round has at most max_turns decisions and places each card of its deck (and of
        # each reshuffle) once: the bound counts MAX_ROUNDS such rounds.
        length = MAX_ROUNDS * (rules.max_turns + 4 * cards) + 1
        info = pyspiel.GameInfo(
            num_distinct_actions=rules.num_actions,
            max_chance_outcomes=cards,
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if self.players == 2 else None,
            max_game_length=length,
        )
        super().__init__(_game_type(self.players), info, params)

    def new_initial_state(self) -> StoOdnoState:
        """A match before its first dealer is drawn (a chance node)."""
        return StoOdnoState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params=None
    ) -> StoOdnoObserver:
        """The observation (default) or, with ``perfect_recall``, the information state."""
        if params:
            raise ValueError(f"python_sto_odno observers take no parameters; got {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return StoOdnoObserver(self, recall)


class _Shared:
    """Marks a value no state ever changes: a clone shares it instead of copying it
    (OpenSpiel clones a Python state by deep-copying its attributes)."""

    def __deepcopy__(self, memo: dict) -> _Shared:
        return self


@dataclasses.dataclass(frozen=True, eq=False)
class _Decision(_Shared):
    """A decision taken (a link of the trail): the engine state it was taken in, by whom,
    which action, and the decision before it."""

    state: engine.State
    player: int
    action: int
    previous: _Decision | None
    digests: dict = dataclasses.field(default_factory=dict)  # seat -> digest (a cache)

    def line(self, seat: int) -> str:
        """What ``seat`` saw at this decision, and the action taken."""
        return f"{seat_text(self.state, seat)} => seat {self.player}: " + action_text(
            self.action, self.state
        )

    def digest(self, seat: int) -> str:
        """A digest of ``seat``'s lines up to this decision (computed once per link)."""
        if seat not in self.digests:
            pending, link = [], self
            while link is not None and seat not in link.digests:
                pending.append(link)
                link = link.previous
            before = link.digests[seat] if link is not None else ""
            for link in reversed(pending):
                text = f"{before}\n{link.line(seat)}".encode()
                before = hashlib.blake2b(text, digest_size=16).hexdigest()
                link.digests[seat] = before
        return self.digests[seat]

    def chain(self) -> list[_Decision]:
        """The trail up to this decision, oldest first."""
        links, link = [], self
        while link is not None:
            links.append(link)
            link = link.previous
        return links[::-1]

    def __reduce__(self):  # pickled flat: a long chain would recurse past Python's limit
        return _trail_of, ([(d.state, d.player, d.action) for d in self.chain()],)


def _trail_of(decisions: list[tuple[engine.State, int, int]]) -> _Decision | None:
    link = None
    for state, player, action in decisions:
        link = _Decision(state, player, action, link)
    return link


@dataclasses.dataclass(frozen=True, eq=False)
class _Steps(_Shared):
    """The record events of the engine's steps so far, as a chain of one step's events."""

    events: tuple[dict[str, Any], ...]
    previous: _Steps | None

    def all(self) -> list[dict[str, Any]]:
        chunks, link = [], self
        while link is not None:
            chunks.append(link.events)
            link = link.previous
        return [event for chunk in reversed(chunks) for event in chunk]

    def __reduce__(self):
        return _Steps, (tuple(self.all()), None)


@dataclasses.dataclass(frozen=True, eq=False)
class _Frozen(_Shared):
    """An engine state that is never changed again (steps run on a copy of it)."""

    state: engine.State


@dataclasses.dataclass(frozen=True, eq=False)
class _Facts(_Shared):
    """What a match's states share: the rule set, the player count, the deck."""

    rules: Rules
    players: int
    deck: Any


class StoOdnoState(pyspiel.State):
    """One match: the engine state of a batch of one game, and the chance events so far.

    The first node draws the first dealer; the engine starts when it is drawn."""

    def __init__(self, game: StoOdnoGame):
        super().__init__(game)
        self._facts = _Facts(game.rules, game.players, game.deck)
        self._events: list[ChanceEvent] = [ChanceEvent("dealer", tuple(range(game.players)))]
        self._snap: _Frozen | None = None  # before the pending decision; None: undealt
        self._snap_events = 0
        self._snap_stack: int | None = None
        self._pending = 0
        self._need: int | None = 0  # the event a chance node places an outcome of
        self._engine: _Frozen | None = None  # the state at a decision, or at the end
        self._stack: int | None = None
        self._returns = np.zeros(self._players)
        self._trail: _Decision | None = None
        self._log: _Steps | None = None  # the engine's record events so far
        self._legal: list[int] | None = None

    @property
    def _rules(self) -> Rules:
        return self._facts.rules

    @property
    def _players(self) -> int:
        return self._facts.players

    @property
    def _deck(self):
        return self._facts.deck

    # The engine, run until it needs an outcome nobody placed or reaches a decision.

    def _attempt(self) -> tuple[engine.State, LazyChance, np.ndarray, list[dict[str, Any]]]:
        trace = Trace(1)
        flip = self._rules.reshuffle == "flip"
        chance = LazyChance(self._events, self._snap_events, self._snap_stack, trace, flip)
        if self._snap is None:
            state = engine.init(self._rules, self._players, seeds=[0], chance=chance, trace=trace)
            rewards = np.zeros(self._players, dtype=np.float32)
        else:
            state = self._snap.state.copy()
            if self._snap_stack is not None:
                _fill_stock(state, self._events[self._snap_stack])
            _, rewards, _ = engine.step(state, [self._pending], chance=chance, trace=trace)
            rewards = rewards[0]
        chance.check(state)
        return state, chance, rewards, trace.current[0]

    def _advance(self) -> None:
        while True:
            try:
                state, chance, rewards, events = self._attempt()
            except _Need as need:
                event = self._events[need.index]
                remaining = event.remaining()
                if len(remaining) == 1:
                    self._events[need.index] = event.placed(remaining[0])
                    continue
                self._need = need.index
                return
            break
        self._need = None
        self._engine = _Frozen(state)
        self._stack = chance.stack
        self._returns = self._returns + rewards
        self._log = _Steps(tuple(events), self._log)
        self._legal = None

    # OpenSpiel's State API.

    def current_player(self) -> int:
        """The seat to act, ``CHANCE`` or ``TERMINAL``."""
        if self._need is not None:
            return pyspiel.PlayerId.CHANCE
        if bool(self._engine.state.done[0]):
            return pyspiel.PlayerId.TERMINAL
        return int(self._engine.state.current_player[0])

    def _legal_actions(self, player: int) -> list[int]:
        if self._legal is None:
            self._legal = np.flatnonzero(engine.legal_mask(self._engine.state)[0]).tolist()
        return list(self._legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of the open event, each equally likely."""
        remaining = self._events[self._need].remaining()
        return [(value, 1.0 / len(remaining)) for value in remaining]

    def _apply_action(self, action: int) -> None:
        if self._need is not None:
            event = self._events[self._need]
            if action not in event.remaining():
                raise ValueError(
                    f"chance outcome {action} is not open for this {event.kind}; open: "
                    f"{event.remaining()}"
                )
            event = event.placed(action)
            self._events[self._need] = event
            # A deal needs all its cards before the engine can go on: ask for the next one.
            while len(event.revealed) < event.needed:
                remaining = event.remaining()
                if len(remaining) > 1:
                    return
                event = event.placed(remaining[0])
                self._events[self._need] = event
            self._advance()
            return
        player = int(self._engine.state.current_player[0])
        self._trail = _Decision(self._engine.state, player, int(action), self._trail)
        self._snap = self._engine
        self._snap_events = len(self._events)
        self._snap_stack = self._stack
        self._pending = int(action)
        self._advance()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self._need is None:
                return f"chance {action}"
            event = self._events[self._need]
            if event.kind == "dealer":
                return f"first dealer: seat {action}"
            name = _card_name(action, self._deck)
            if event.kind == "deck" and len(event.revealed) < event.needed:
                return f"deal {name}"
            return f"{'steal' if event.kind == 'steal' else 'stock'} {name}"
        return action_text(action, self.view_state)

    def is_terminal(self) -> bool:
        """The match is over (won, or truncated at ``max_turns``)."""
        return self._need is None and bool(self._engine.state.done[0])

    def returns(self) -> list[float]:
        """Each seat's match reward once the match is over (zeros before: the rewards
        come at the end, OpenSpiel's terminal reward model)."""
        if not self.is_terminal():
            return [0.0] * self._players
        return [float(r) for r in self._returns]

    def __str__(self) -> str:
        state = self.view_state
        if state is None:
            return "(the first dealer is not drawn yet)"
        lines = [seat_text(state, seat) for seat in range(self._players)]
        if self._need is not None:
            lines.append(f"chance: {self._events[self._need].kind}")
        return "\n".join(lines)

    # The kit's side.

    @property
    def engine_state(self) -> engine.State | None:
        """The engine state at this decision or end (None at a chance node): do not edit."""
        return None if self._need is not None else self._engine.state

    @property
    def view_state(self) -> engine.State | None:
        """The last engine state reached (before the pending decision at a chance node)."""
        box = self._engine if self._need is None else self._snap
        return None if box is None else box.state

    @property
    def chance_events(self) -> tuple[ChanceEvent, ...]:
        """The random events so far with their placed outcomes."""
        return tuple(self._events)

    @property
    def open_event(self) -> ChanceEvent | None:
        """The event a chance node places an outcome of (None elsewhere)."""
        return None if self._need is None else self._events[self._need]

    @property
    def decisions(self) -> tuple[tuple[int, int], ...]:
        """The decisions taken, as ``(seat, action)`` (forced ones, which the engine
        resolves, are not among them)."""
        chain = self._trail.chain() if self._trail is not None else []
        return tuple((d.player, d.action) for d in chain)

    def record_events(self) -> list[dict[str, Any]]:
        """See :func:`record_events`."""
        return record_events(self)


# --- views ---------------------------------------------------------------------------------------


class StoOdnoObserver:
    """OpenSpiel's observer: ``tensor``/``dict`` and ``string_from`` of one seat."""

    def __init__(self, game: StoOdnoGame, perfect_recall: bool):
        self.recall = perfect_recall
        self.cards = game.deck.cards
        self.obs_size = obs_size(game.rules)
        pieces = [("observation", self.obs_size)]
        if perfect_recall:
            pieces += [("played", MAX_PLAYERS * self.cards), ("held", self.cards)]  # seats padded
        self.tensor = np.zeros(sum(size for _, size in pieces), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for name, size in pieces:
            view = self.tensor[at : at + size]
            self.dict[name] = view.reshape(MAX_PLAYERS, self.cards) if name == "played" else view
            at += size

    def set_from(self, state: StoOdnoState, player: int) -> None:
        """Fill ``tensor`` with what ``player`` knows in ``state``."""
        self.tensor.fill(0.0)
        view = state.view_state
        if view is None:
            return
        self.dict["observation"][:] = observe_one(view, player)
        if not self.recall:
            return
        players = view.players
        round_now = int(view.round[0])
        held = int(view.hand[0, player])
        link = state._trail
        while link is not None and int(link.state.round[0]) == round_now:
            held |= int(link.state.hand[0, player])
            if link.action < self.cards:
                seat = (link.player - player) % players
                self.dict["played"][seat, link.action] = 1.0
            link = link.previous
        bits = np.array([held >> c & 1 for c in range(self.cards)], dtype=np.float32)
        self.dict["held"][:] = bits

    def string_from(self, state: StoOdnoState, player: int) -> str:
        """The seat's view now, or (perfect recall) at every decision with its action."""
        view = state.view_state
        if not self.recall:
            return seat_view(view, player) if view is not None else f"seat {player}: not dealt"
        now = seat_text(view, player) if view is not None else f"seat {player}; not dealt"
        if state._trail is None:
            return now
        return f"{now}\nhistory {state._trail.digest(player)}"


# --- records ---------------------------------------------------------------------------------


def record_events(state: StoOdnoState) -> list[dict[str, Any]]:
    """The match so far as a kit record's events (docs/rules.md §10).

    Each round's deck and each reshuffled stock list the cards placed by chance actions,
    then the cards nobody drew in ascending id order (any order replays the same match: the
    engine never looked at them). A match that is not over gets no end line here;
    :func:`sto_odno_env.records.record.write_records` adds the ``unfinished`` line."""
    stacks = {"deck": [], "shuffle": []}
    for event in state._events:
        if event.kind in stacks:
            stacks[event.kind].append(event)
    decks, shuffles = iter(stacks["deck"]), iter(stacks["shuffle"])
    events = []
    for event in state._log.all() if state._log else []:
        event = dict(event)
        if event["type"] == "round":
            event["deck"] = next(decks).order()
        elif event["type"] == "reshuffle" and state._rules.reshuffle != "flip":
            event["stock"] = next(shuffles).order()
        events.append(event)
    return events


def write_record(state: StoOdnoState, path: str | Path) -> None:
    """Write the match as a kit record (JSON Lines) that ``python -m sto_odno_env.replay``
    checks."""
    from ..records.record import write_records

    write_records(path, [record_events(state)])


def record_outcomes(events: Sequence[dict[str, Any]], rules: Rules | str) -> list[list[int]]:
    """The chance outcomes of a kit record's match, one list per engine event in order:
    ``[dealer]``, a round's deck, a reshuffled stock (unless ``reshuffle: flip``), ``[card]``
    stolen."""
    rules = load_rules(rules)
    outcomes = []
    for event in events:
        if event["type"] == "round":
            if not outcomes:
                outcomes.append([event["dealer"]])
            outcomes.append(list(event["deck"]))
        elif event["type"] == "reshuffle" and rules.reshuffle != "flip":
            outcomes.append(list(event["stock"]))
        elif event["type"] == "steal":
            outcomes.append([event["card"]])
    return outcomes


def state_from_record(game: StoOdnoGame, events: Sequence[dict[str, Any]]) -> StoOdnoState:
    """Play one kit record's match through the OpenSpiel game: its chance outcomes at the
    chance nodes, its unforced decisions at the decision nodes. The state returned is where
    the record ends (the match's end, or where it stopped)."""
    outcomes = record_outcomes(events, game.rules)
    decisions = [e["action"] for e in events if e["type"] == "action" and not e["forced"]]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            index = state._need
            event = state._events[index]
            state.apply_action(int(outcomes[index][len(event.revealed)]))
        elif decisions:
            state.apply_action(int(decisions.pop(0)))
        else:
            break
    if decisions:
        raise ValueError(f"the match ended with {len(decisions)} recorded decisions left")
    return state


def load(rules: Rules | str = "classic", players: int = 4) -> StoOdnoGame:
    """``pyspiel.load_game(GAME_NAME, {"rules": rules, "players": players})``."""
    name = rules if isinstance(rules, str) else None
    if name is None:
        raise TypeError("load takes a preset name or a YAML path; for a Rules, write it to YAML")
    return pyspiel.load_game(GAME_NAME, {"rules": name, "players": int(players)})


pyspiel.register_game(_game_type(2), StoOdnoGame)
