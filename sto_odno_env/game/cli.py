"""Helpers shared by the command-line tools: help formatting, argument types, output files.

Every tool refuses bad input with one line on stderr that names what is wrong and what is
allowed, and a non-zero exit; an output file is written to a temporary file beside it and
renamed into place, so it is either complete or absent. A tool whose output reader goes
away (``... | head``) stops quietly (:func:`quiet_broken_pipe`).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import math
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, NoReturn, ParamSpec

_P = ParamSpec("_P")
BROKEN_PIPE = 141  # 128 + SIGPIPE: the status a shell shows for a writer whose reader left


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows each flag's default and keeps the description's own line breaks; a name with
    a hyphen (``ppo-classic-2p``) is never split across lines."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        # A required flag, a switch and an empty list have no default worth printing.
        default = action.default
        if action.required or default is None or default is False or default == []:
            return action.help
        return super()._get_help_string(action)


class RawHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the description's own line breaks; a name with a hyphen is never split."""

    _split_lines = HelpFormatter._split_lines


class ArgumentParser(argparse.ArgumentParser):
    """Reports a usage error as one line on stderr (what is wrong, what is allowed), exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def parser(prog: str, description: str, epilog: str | None = None) -> ArgumentParser:
    """An argument parser whose usage line reads ``python -m PROG`` and whose help shows
    every default."""
    return ArgumentParser(
        prog=f"python -m {prog}",
        description=description,
        epilog=epilog,
        formatter_class=HelpFormatter,
    )


MAX_MATCHES = 10_000_000  # far beyond any run here; a mistyped count fails fast, not in numpy


def _integer(text: str, low: int, allowed: str, high: int | None = None) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an integer; allowed: {allowed}"
        ) from None
    if value < low or (high is not None and value > high):
        raise argparse.ArgumentTypeError(f"{value} is out of range; allowed: {allowed}")
    return value


def match_count(text: str) -> int:
    """An argparse type: a number of matches, 1 to :data:`MAX_MATCHES`."""
    return _integer(text, 1, f"an integer from 1 to {MAX_MATCHES:,}", MAX_MATCHES)


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1."""
    return _integer(text, 1, "an integer >= 1")


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0."""
    allowed = "a number > 0"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; allowed: {allowed}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is out of range; allowed: {allowed}")
    return value


def natural_int(text: str) -> int:
    """An argparse type: an integer >= 0."""
    return _integer(text, 0, "an integer >= 0")


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 card``, ``2 cards`` (``words`` for an irregular plural: ``match``/``matches``)."""
    if count == 1:
        return f"{count} {word}"
    return f"{count} {words or word + 's'}"


def output_problem(path: str | Path, directory: bool = False) -> str | None:
    """Why ``path`` cannot be written (checked before any long work), or None.

    With ``directory`` the path is a directory that may be created (with its parents).
    """
    path = Path(path)
    if directory:
        if path.exists() and not path.is_dir():
            return f"{str(path)!r} exists and is not a directory; give a directory path"
        existing = next(p for p in [path, *path.parents] if p.exists())
        if not existing.is_dir():
            return f"{str(existing)!r} is not a directory; give a directory path"
        if not os.access(existing, os.W_OK | os.X_OK):
            return f"directory {str(existing)!r} is not writable; give a writable location"
        return None
    if path.is_dir():
        return f"{str(path)!r} is a directory; give a file path"
    parent = path.parent
    if not parent.is_dir():
        return f"directory {str(parent)!r} does not exist; create it first or give another path"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"directory {str(parent)!r} is not writable; give a writable location"
    return None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_problem(path: str | Path, error: OSError) -> str:
    """One line for a write that failed: the path and the system's reason."""
    return f"cannot write {str(path)!r}: {error.strerror or error}; give a writable location"


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", **kwargs) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success rename it to ``path``.

    If the block raises, the temporary file is removed and ``path`` is left as it was, so
    a reader never sees half a file.
    """
    path = Path(path)
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, mode, **kwargs) as handle:
            yield handle
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes it private (0600)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def quiet_broken_pipe(main: Callable[_P, int | None]) -> Callable[_P, int | None]:
    """Wrap a command's ``main`` so that a reader that goes away (``... | head``) ends the
    command quietly: no ``BrokenPipeError`` traceback, exit code :data:`BROKEN_PIPE` (as a
    shell reports for ``yes | head``). The wrapper flushes stdout itself, so output still
    buffered when ``main`` returns is caught too."""

    @functools.wraps(main)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> int | None:
        try:
            code = main(*args, **kwargs)
            sys.stdout.flush()
        except BrokenPipeError:
            _drop_stdout()
            return BROKEN_PIPE
        return code

    return wrapper


def _drop_stdout() -> None:
    # Python flushes stdout once more at exit; pointing it at the null device keeps that
    # flush from meeting the closed pipe (and printing "Exception ignored ...").
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


@contextlib.contextmanager
def sigterm_raises(exception: type[BaseException] = KeyboardInterrupt) -> Iterator[None]:
    """While the block runs, SIGTERM raises ``exception`` (by default KeyboardInterrupt, so
    that it stops a program as Ctrl-C does), in the main thread only, where Python runs
    signal handlers; the previous handler comes back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise exception

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
