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
import importlib
import math
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType, ModuleType
from typing import IO, TYPE_CHECKING, NoReturn, ParamSpec

if TYPE_CHECKING:
    import subprocess

_P = ParamSpec("_P")
BROKEN_PIPE = 141  # 128 + SIGPIPE: the status a shell shows for a writer whose reader left


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows each flag's default and keeps the description's own line breaks; a name with
    a hyphen (``ppo-classic-first``) is never split across lines."""

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


def table_arguments(
    parser: argparse.ArgumentParser, *, players: int | None, counts: str = "2 to 6"
) -> None:
    """``--rules`` (a preset or a rules file) and ``--players`` (default ``players``; None:
    required; ``counts`` says which the tool takes), as every tool that seats a table
    takes them. Each tool checks the count against its rules."""
    parser.add_argument("--rules", default="classic", help="preset name or YAML file path")
    _number_flag(parser, "--players", positive_int, players, f"seats at each table ({counts})")


def deal_arguments(
    parser: argparse.ArgumentParser,
    *,
    matches: int | None,
    per: str,
    seed: str,
    seed_default: int = 0,
) -> None:
    """``--matches`` (default ``matches``; None: required; ``per`` says what they are
    counted per) and ``--seed`` (``seed`` says what it seeds), as every tool that deals
    matches takes them."""
    _number_flag(parser, "--matches", match_count, matches, f"matches {per}")
    _number_flag(parser, "--seed", natural_int, seed_default, seed)


def _number_flag(
    parser: argparse.ArgumentParser,
    flag: str,
    kind: Callable[[str], int],
    default: int | None,
    meaning: str,
) -> None:
    parser.add_argument(flag, type=kind, default=default, required=default is None, help=meaning)


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


def require(module: str, needs: str, extras: str, error: type[Exception]) -> ModuleType:
    """``module``, imported when first needed (an optional dependency), or ``error`` saying
    ``{needs}: python -m pip install -e '.[{extras}]'`` where it is not installed (this
    interpreter written as :func:`python_command` writes it)."""
    try:
        return importlib.import_module(module)
    except ImportError:  # pragma: no cover - depends on the install
        raise error(f"{needs}: {python_command()} -m pip install -e '.[{extras}]'") from None


def python_command() -> str:
    """This interpreter as the user's shell runs it, for the commands a tool prints
    (``continue with ... --resume``, an install hint): ``python`` where the shell's
    ``python`` is this one (its virtual environment is active), else its path, relative
    to the working folder when inside it (``.venv/bin/python``: scripts/train.sh runs the
    kit from ``.venv`` without activating it in the user's shell)."""
    import shlex
    import shutil

    here = os.path.abspath(sys.executable)
    on_path = shutil.which("python")
    # The same folder, not the same file: a venv's python is a link to the system's.
    if on_path and os.path.dirname(os.path.abspath(on_path)) == os.path.dirname(here):
        return "python"
    relative = os.path.relpath(here)
    return shlex.quote(here if relative.startswith("..") else relative)


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


@contextlib.contextmanager
def output_directory(path: str | Path) -> Iterator[Path]:
    """Create the directory ``path`` (and its missing parents) now, before the long work, so
    that a path that cannot be made fails at once; if the block raises (an error, a stop),
    the directories made here that are still empty are removed again: a stopped command
    never leaves an empty folder behind."""
    path = Path(path)
    made = [folder for folder in [path, *path.parents] if not folder.exists()]
    path.mkdir(parents=True, exist_ok=True)
    try:
        yield path
    except BaseException:
        for folder in made:  # the deepest first
            try:
                folder.rmdir()
            except OSError:  # not empty (or gone): keep it and what is above
                break
        raise


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


# The shell's code for Ctrl-C; SIGTERM gets it too: a stop asked for, not a failure.
EXIT_STOPPED = 130
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stopped(KeyboardInterrupt):
    """SIGINT (Ctrl-C) or SIGTERM asked the command to stop. A KeyboardInterrupt, so that
    code which already cleans up after Ctrl-C cleans up after SIGTERM the same way."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        """``Ctrl-C`` for SIGINT, the signal's name (``SIGTERM``) otherwise."""
        if self.signum == signal.SIGINT:
            return "Ctrl-C"
        return signal.Signals(self.signum).name


class Stopping:
    """The state of :func:`stopping`: which signal came (:attr:`received`), and
    :meth:`held`, a block that a signal does not cut."""

    def __init__(self, exception: Callable[[int], BaseException] = Stopped) -> None:
        self.received: int | None = None
        self._exception = exception
        self._holds = 0

    def handle(self, signum: int, frame: object) -> None:
        """The signal handler: remember the first signal; raise unless a block holds it."""
        if self.received is None:
            self.received = signum
        if not self._holds:
            raise self._exception(signum)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """A signal that comes while the block runs (writing a result, renaming a file)
        waits until the block has ended, then stops the command."""
        self._holds += 1
        try:
            yield
        finally:
            self._holds -= 1
        if not self._holds and self.received is not None:
            raise self._exception(self.received)


@contextlib.contextmanager
def stopping(
    signals: tuple[int, ...] = STOP_SIGNALS,
    exception: Callable[[int], BaseException] = Stopped,
) -> Iterator[Stopping]:
    """While the block runs, each of ``signals`` (SIGINT and SIGTERM) raises
    ``exception(signum)`` (:class:`Stopped`) where the program is, in the main thread (where
    Python runs signal handlers); the previous handlers come back after. A shell starts
    background jobs with SIGINT ignored: it is taken here too, as a user's Ctrl-C or a
    test's signal is meant to stop the command. Elsewhere than in the main thread nothing
    is installed.

    The one signal helper of the kit: a command catches :class:`Stopped` (or
    KeyboardInterrupt), says in one line what it kept (:func:`stopped`) and returns
    :data:`EXIT_STOPPED`.
    """
    state = Stopping(exception)
    if threading.current_thread() is not threading.main_thread():
        yield state
        return
    with _handled_by(signals, state.handle):
        yield state


@contextlib.contextmanager
def deferred(signals: tuple[int, ...] = STOP_SIGNALS) -> Iterator[None]:
    """Each of ``signals`` that comes while the block runs (a message read or written whole
    through a pipe) waits until the block has ended, then reaches the handler that was
    there: a handler raising in the middle would leave half a message in the pipe, and the
    next read would take the rest for a length and wait for ever.

    Blocking the signals with ``pthread_sigmask`` is not enough: the kernel hands a signal
    this thread blocks to another one (torch's), and Python runs its handler here all the
    same. So the handlers are swapped for one that only notes the signal. Only Python
    handlers are swapped (SIG_IGN and SIG_DFL never raise); elsewhere than in the main
    thread nothing is (no handler runs there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    raising = tuple(number for number in signals if callable(signal.getsignal(number)))
    with _handled_by(raising, lambda signum, _: noted.append(signum)):
        yield
    for signum in noted:
        signal.raise_signal(signum)


@contextlib.contextmanager
def _handled_by(
    signals: tuple[int, ...], handler: Callable[[int, FrameType | None], object]
) -> Iterator[None]:
    """``handler`` for each of ``signals`` while the block runs; the previous ones after."""
    previous = {number: signal.signal(number, handler) for number in signals}
    try:
        yield
    finally:
        for number, handler_before in previous.items():
            signal.signal(number, handler_before)


def stopped(stop: BaseException, outcome: str, prog: str | None = None) -> int:
    """Print the one line of a command that was stopped (``stopped by SIGTERM: OUTCOME``,
    ``OUTCOME`` saying what was kept, or that nothing was written) on stderr; return
    :data:`EXIT_STOPPED`."""
    how = stop.name if isinstance(stop, Stopped) else "Ctrl-C"
    prefix = f"{prog}: " if prog else ""
    print(f"{prefix}stopped by {how}: {outcome}", file=sys.stderr, flush=True)
    return EXIT_STOPPED


def stop_child(process: subprocess.Popen, timeout: float = 30.0) -> None:
    """Stop a child process this command started (a server for a load test or pictures):
    SIGTERM, then kill it if it has not ended within ``timeout`` seconds.

    SIGTERM, not SIGINT: a script started in the background hands its children SIGINT
    ignored, and the child would never stop."""
    import subprocess

    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def sigterm_raises(exception: type[BaseException] = KeyboardInterrupt):
    """:func:`stopping` for SIGTERM alone, raising ``exception`` (Ctrl-C keeps Python's
    own KeyboardInterrupt): for a command that tells the two apart."""
    return stopping((signal.SIGTERM,), exception)
