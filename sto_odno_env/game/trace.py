"""Record events (docs/rules.md §10) collected per game while the engine plays."""

from __future__ import annotations

from typing import Any, Protocol


class EventSink(Protocol):
    """What the engine emits record events to: a :class:`Trace`, or a replay's checker."""

    def start_match(self, game: int) -> None: ...

    def emit(self, game: int, event: dict[str, Any]) -> None: ...


class Trace:
    """Collects record events (docs/rules.md §10) per game; ``matches`` holds finished ones."""

    def __init__(self, batch: int):
        self.current: list[list[dict[str, Any]]] = [[] for _ in range(batch)]
        self.matches: list[list[dict[str, Any]]] = []

    def start_match(self, game: int) -> None:
        self.current[game] = []

    def emit(self, game: int, event: dict[str, Any]) -> None:
        self.current[game].append(event)
        if event["type"] == "match_end":
            self.matches.append(self.current[game])
