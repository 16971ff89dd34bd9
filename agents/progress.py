"""How far an evaluation's matches are: a tqdm bar on a terminal, plain lines in a log or
a pipe (:class:`Progress`)."""

from __future__ import annotations

import sys
import threading
import time

HEARTBEAT_S = 30.0  # seconds between "still playing" lines without a progress bar


class Progress:
    """How far the matches are: a tqdm bar on a terminal (``bar``), else plain lines (a
    start line and one every ``every`` seconds), never ``\\r``-joined text in a log.

    The lines come from a daemon thread: a slow agent (``search``) can take minutes over
    one engine step of a batch, so a line per finished match would leave a log silent.
    Neither tqdm (which writes ``\\r`` updates to any file) nor rich (which draws nothing
    off a terminal until the end) prints periodic plain lines, so this thread stays; on a
    terminal it only refreshes the bar, so that its clock moves during a slow step.
    """

    def __init__(self, total: int, bar: bool, start_line: str, every: float = HEARTBEAT_S):
        self.total, self.done = total, 0
        self.every = 1.0 if bar else every
        self.start = time.perf_counter()
        self._bar = None
        if bar:
            from tqdm import tqdm

            self._bar = tqdm(total=total, unit="match", file=sys.stderr)
        else:
            self.say(start_line)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True)

    @staticmethod
    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    def update(self, count: int) -> None:
        self.done += count
        if self._bar is not None:
            self._bar.update(count)

    def _beat(self) -> None:
        while not self._stop.wait(self.every):
            if self._bar is not None:
                self._bar.refresh()
            else:
                elapsed = time.perf_counter() - self.start
                self.say(f"  {self.done}/{self.total} matches done, {elapsed:.0f} s")

    def __enter__(self) -> Progress:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()
        if self._bar is not None:
            self._bar.close()  # ends the bar's line, so that a stop's line starts afresh
