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
import json
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

from ..game import engine
from ..game.rules import Rules
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
