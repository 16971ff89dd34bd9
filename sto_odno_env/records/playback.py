"""Engine states along a recorded match, for stepping through it forward and back.

:meth:`Playback.load` checks the whole file with :func:`sto_odno_env.records.replay.replay` (so a
bad record fails with the replayer's message naming the line), then replays the chosen
match once through the engine with its random events read from the record, keeping a
copy of the state after every decision. A :class:`Frame` is one decision: its action
line and the lines the engine wrote after it (draws, reshuffles, round ends, deals). An
unfinished match (docs/rules.md §10) ends with the frame of the decision it stopped at,
its ``unfinished`` line included. A header may name the seats (``"names"``, an optional
field the terminal game writes: ``["You", "expert (seat 1)"]``); the viewer shows them.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..game import engine
from ..game.rules import Rules, load_rules
from ..views.text import legal_actions
from .replay import RecordError, replay

Line = tuple[int, dict[str, Any]]  # (line number in the file, event)


@dataclasses.dataclass
class Frame:
    """The state after a decision, and the record lines that led to it from the last one."""

    state: engine.State
    events: list[Line]

    @property
    def first(self) -> int:
        """The frame's first record line number."""
        return self.events[0][0]

    @property
    def last(self) -> int:
        """The frame's last record line number."""
        return self.events[-1][0]


class _RecordedChance:
    """The engine's random events taken in order from one match's record lines."""

    def __init__(self, events: list[dict[str, Any]]):
        def queue(kind: str, field: str) -> deque:
            return deque(event[field] for event in events if event["type"] == kind)

        self.decks = queue("round", "deck")
        self.dealers = queue("round", "dealer")
        self.stocks = queue("reshuffle", "stock")
        self.steals = queue("steal", "card")

    def deck(self, state, games):
        return np.array([self.decks.popleft()], dtype=np.int8)

    def first_dealer(self, state, games):
        return np.array([self.dealers[0]], dtype=np.int8)

    def shuffle(self, state, games, cards, counts):
        stock = self.stocks.popleft()
        stocks = np.full((1, cards.shape[1]), -1, dtype=np.int8)
        stocks[0, : len(stock)] = stock[::-1]  # a record lists the top card first
        return stocks

    def steal(self, state, games, drawer, victim):
        return np.array([self.steals.popleft()], dtype=np.int8)


@dataclasses.dataclass
class Playback:
    """One recorded match as a list of frames (see the module docstring)."""

    path: str
    match: int  # from 1
    matches: int  # matches in the file
    players: int
    rules: Rules
    frames: list[Frame]
    names: list[str] | None = None  # the seats' names, where the record's header has them

    @property
    def finished(self) -> bool:
        """Whether the match ran to its end (False: it stopped at an ``unfinished`` line)."""
        return bool(self.frames[-1].state.done[0])

    @property
    def first_line(self) -> int:
        """The match's first record line number (its ``match`` line)."""
        return self.frames[0].first

    @property
    def last_line(self) -> int:
        """The match's last record line number."""
        return self.frames[-1].last

    def frame_at(self, line: int) -> int | None:
        """The index of the frame holding record line ``line``, or None outside the match."""
        for index, frame in enumerate(self.frames):
            if frame.first <= line <= frame.last:
                return index
        return None

    @classmethod
    def load(cls, path: str | Path, match: int = 1) -> Playback:
        """Match ``match`` (from 1) of a record file. Raises RecordError for a bad file or
        a match number the file does not hold."""
        replay(path)  # the replayer's checks and messages, before anything is shown
        lines = [
            (number, json.loads(text))
            for number, text in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1)
            if text.strip()
        ]
        starts = [i for i, (_, event) in enumerate(lines) if event["type"] == "match"]
        if not 1 <= match <= len(starts):
            raise RecordError(
                f"{path}: --match {match} is not in the file; it holds matches 1..{len(starts)}"
            )
        begin = starts[match - 1]
        end = starts[match] if match < len(starts) else len(lines)
        own = lines[begin:end]
        header = own[0][1]
        rules, players = Rules.from_dict(header["rules"]), header["players"]
        names = header.get("names")
        if names is not None and not (
            isinstance(names, list)
            and len(names) == players
            and all(isinstance(name, str) and name.strip() for name in names)
        ):
            raise RecordError(
                f"{path}: line {own[0][0]}: names must be a list of {players} non-empty "
                f"strings, one per seat; got {names!r}"
            )
        chance = _RecordedChance([event for _, event in own])
        state = engine.init(
            rules, players, 1, seeds=[header["seed"]], chance=chance, resolve_forced=False
        )
        frames: list[Frame] = []
        pending: list[Line] = []
        for number, event in own:
            if event["type"] == "action":  # the state now is the one this decision sees
                frames.append(Frame(state.copy(), pending))
                pending = []
                actions = np.array([event["action"]])
                engine.step(state, actions, chance=chance, resolve_forced=False)
            pending.append((number, event))
        frames.append(Frame(state.copy(), pending))
        return cls(str(path), match, len(starts), players, rules, frames, names)


class DealWatch:
    """The engine's own chance, noting each seat's hand whenever a round is dealt (the hands
    the last round ended with) and the seats still in, who are dealt the next round."""

    def __init__(self) -> None:
        self.inner = engine.RANDOM_CHANCE
        self.deals: list[tuple[list[int], int]] = []

    def deck(self, state: engine.State, games: np.ndarray) -> np.ndarray:
        self.deals.append(([int(h) for h in state.hand[0]], int(state.in_match[0])))
        return self.inner.deck(state, games)

    def first_dealer(self, state, games):
        return self.inner.first_dealer(state, games)

    def shuffle(self, state, games, cards, counts):
        return self.inner.shuffle(state, games, cards, counts)

    def steal(self, state, games, drawer, victim):
        return self.inner.steal(state, games, drawer, victim)


def with_draws(
    events: Sequence[dict[str, Any]],
    before: list[int] | None,
    deals: Sequence[tuple[list[int], int]],
    now: list[int],
    hand_size: int,
    cards: int,
) -> list[dict[str, Any]]:
    """Copies of ``events`` (one decision's record events) with the cards each seat took:
    ``drawn`` on the action of the seat that drew, ``draw`` events for a penalty taken by
    another seat (or at a round's opening card) with its ``cause`` (the card played, or
    the opening card), as :func:`sto_odno_env.views.text.event_text` reads them.

    The events split at each ``round`` line. A part's cards taken are its hands at its end
    (``deals``: the hands when the next round was dealt; ``now`` for the last part) less its
    hands at its start (``before`` the decision, or every card dealt), less stolen cards.
    """
    starts = [i for i, event in enumerate(events) if event["type"] == "round"]
    bounds = [0, *starts, len(events)]
    ends = [hands for hands, _ in deals] + [now]
    result: list[dict[str, Any]] = []
    for part, (first, stop) in enumerate(itertools.pairwise(bounds)):
        piece = [dict(event) for event in events[first:stop]]
        action = next((e for e in piece if e["type"] == "action"), None)
        cause = None  # the card whose penalty a seat took without a decision of its own
        if part == 0:
            if before is None:  # the match's start: nothing was held before the deal
                result += piece
                continue
            start = before
            if action is not None and action["action"] < cards:
                cause = action["action"]
        else:
            deck, seats_in = piece[0]["deck"], deals[part - 1][1]
            count = seats_in.bit_count() * hand_size  # the cards dealt
            start = [sum(1 << card for card in deck[:count])] * len(ends[part])
            cause = deck[count - 1]  # the opening card: the dealer's last, turned up (§3)
        taken = [end & ~begin for end, begin in zip(ends[part], start, strict=True)]
        for event in piece:
            if event["type"] == "steal":
                taken[event["player"]] &= ~(1 << event["card"])
        notes = []
        for seat, bits in enumerate(taken):
            drawn = [card for card in range(cards) if bits >> card & 1]
            if not drawn:
                continue
            if action is not None and seat == action["player"]:
                action["drawn"] = drawn
            else:
                notes.append({"type": "draw", "player": seat, "cards": drawn, "cause": cause})
        at = next(
            (i for i, e in enumerate(piece) if e["type"] in ("round_end", "match_end")),
            len(piece),
        )
        result += piece[:at] + notes + piece[at:]
    return result


class ForcedTrace(engine.Trace):
    """The record of a match stepped one decision at a time: the caller says whether the
    decision it steps is forced (one legal action), as the record marks it (docs/rules.md
    §10)."""

    forced = False

    def emit(self, game: int, event: dict[str, Any]) -> None:
        if event["type"] == "action":
            event["forced"] = self.forced
        super().emit(game, event)


class SteppedMatch:
    """One match stepped one decision at a time, forced decisions included (the caller
    takes them, so that each card a seat takes can be told), as the terminal game and the
    text env play it.

    :meth:`start` and :meth:`step` return the record events the decision led to, copied,
    with the cards each seat took (:func:`with_draws`: ``drawn`` on the action of a seat
    that drew, ``draw`` events with their ``cause`` for a penalty taken), ready for
    :func:`sto_odno_env.views.text.event_text`. :attr:`record` is the match's record so far
    (docs/rules.md §10); draws are not part of it. :attr:`rewards` add up each seat's
    match reward (the engine's: +1 for the winner to −1 for the last, docs/rules.md §8).
    """

    def __init__(
        self, rules: Rules | str, players: int, seed: int = 0, *, match_seed: int | None = None
    ):
        """``seed`` as :func:`sto_odno_env.game.engine.init` takes it, or ``match_seed``: the
        engine's match seed itself (a game of a batch replayed alone)."""
        self.trace = ForcedTrace(1)
        self.chance = DealWatch()
        self.state = engine.init(
            load_rules(rules),
            players,
            1,
            seed=seed,
            seeds=None if match_seed is None else [match_seed],
            trace=self.trace,
            chance=self.chance,
            resolve_forced=False,
        )
        self.complete = 0  # record events up to the last decision point (what is saved)
        self.rewards = np.zeros(players, dtype=np.float64)  # each seat's match reward so far

    @property
    def record(self) -> list[dict[str, Any]]:
        """The record events up to the last decision point: a step cut short (Ctrl-C)
        leaves no half of it here."""
        return self.trace.current[0][: self.complete]

    @property
    def done(self) -> bool:
        """Whether the match is over."""
        return bool(self.state.done[0])

    def legal(self) -> list[int]:
        """The legal actions of the player to act, in id order."""
        return legal_actions(self.state)

    def start(self) -> list[dict[str, Any]]:
        """The events of the deal (and of an opening card's penalty)."""
        return self._gather(None)

    def step(self, action: int) -> list[dict[str, Any]]:
        """Apply ``action`` for the player to act (forced when it is the only legal one);
        returns the events it led to. An illegal action raises ValueError."""
        legal = self.legal()
        if action not in legal:
            raise ValueError(f"action {action} is not legal now; legal: {legal}")
        hands = self._hands()
        self.trace.forced = len(legal) == 1
        _, rewards, _ = engine.step(
            self.state,
            np.array([action]),
            trace=self.trace,
            chance=self.chance,
            resolve_forced=False,
        )
        self.rewards += rewards[0]
        return self._gather(hands)

    def _hands(self) -> list[int]:
        return [int(hand) for hand in self.state.hand[0]]

    def _gather(self, before: list[int] | None) -> list[dict[str, Any]]:
        events = self.trace.current[0][self.complete :]
        self.complete = len(self.trace.current[0])
        deals, self.chance.deals = self.chance.deals, []
        tables = self.state.tables
        return with_draws(events, before, deals, self._hands(), tables.hand_size, tables.deck.cards)
