"""Where a run's lines and progress go: :class:`Console` prints lines to stdout and, on a
terminal, draws one tqdm bar per phase on stderr (:class:`Bar`); off a terminal (a log
file, a pipe, ``--no-progress``) a phase's progress is a plain line every ``LOG_EVERY``
seconds instead, because tqdm writes its redraws there as one ``\\r``-joined line."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator

LOG_EVERY = 30.0  # seconds between progress lines when there is no terminal for bars
FIRST_LINE = 5.0  # ... and before a phase's first one (a phase shorter than this shows none)


class Bar:
    """Progress of one phase: a tqdm bar on a terminal, else a line every ``LOG_EVERY``
    seconds."""

    def __init__(self, console: Console, label: str, total: int, unit: str):
        self.console = console
        self.label = label
        self.total = total
        self.unit = unit
        self.done = 0
        self.note = ""
        self._bar = None
        self._next_line = time.monotonic() + min(FIRST_LINE, console.log_every)
        if console.interactive:
            from tqdm import tqdm

            tqdm.monitor_interval = 0  # no monitor thread
            self._bar = tqdm(
                total=total,
                desc=label,
                unit=f" {unit}",
                unit_scale=True,
                dynamic_ncols=True,
                mininterval=0.5,
                leave=False,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt}{unit} "
                "[{elapsed}<{remaining}]{postfix}",
            )

    @property
    def drawn(self) -> bool:
        """A tqdm bar is on the terminal."""
        return self._bar is not None

    def advance(self, count: int, note: str | None = None) -> None:
        """``count`` more done; ``note`` (e.g. the update and speed) shown beside."""
        self.done += count
        if note is not None:
            self.note = note
        if self._bar is not None:
            if note is not None:
                self._bar.set_postfix_str(note, refresh=False)
            self._bar.update(count)
        elif time.monotonic() >= self._next_line:
            self._next_line = time.monotonic() + self.console.log_every
            self.console.say(self.line())

    def line(self) -> str:
        text = f"  {self.label}: {self.done:,}/{self.total:,} {self.unit}"
        return text + (f" ({self.note})" if self.note else "")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            self.console.bars.discard(self)


class Console:
    """Where the run's lines and bars go: lines to stdout, bars to stderr (a terminal)."""

    def __init__(self, interactive: bool, log_every: float = LOG_EVERY):
        self.interactive = interactive
        self.log_every = log_every
        self.bars: set[Bar] = set()

    def say(self, text: str) -> None:
        if self.bars:
            from tqdm import tqdm

            tqdm.write(text)
        else:
            print(text, flush=True)

    def error(self, text: str) -> None:
        print(f"error: {text}", file=sys.stderr, flush=True)

    @contextlib.contextmanager
    def bar(self, label: str, total: int, unit: str) -> Iterator[Bar]:
        bar = Bar(self, label, total, unit)
        if bar.drawn:
            self.bars.add(bar)
        try:
            yield bar
        finally:
            bar.close()

    def close_bars(self) -> None:
        """Take every bar off the terminal (a stop: the summary follows as lines)."""
        for bar in list(self.bars):
            bar.close()


def rate(value: float) -> str:
    """Decisions per second, as the run's lines show them."""
    return f"{value / 1000:,.1f}k decisions/s" if value >= 1000 else f"{value:,.0f} decisions/s"


def duration(seconds: float) -> str:
    """Seconds, or minutes from 90 s on."""
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"
