"""The command-line helpers every command shares (``sto_odno_env/tools/cli.py``): the one
signal helper (:func:`cli.stopping`, :func:`cli.deferred`), the one atomic write
(:func:`cli.atomic_open`) and the stopped exit code, tested on real processes and real
signals."""

from __future__ import annotations

import multiprocessing
import os
import signal
import struct
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from sto_odno_env.tools import cli
from tests.helpers import Stopped, assert_stopped, lines_starting, stop_name, stop_when_ready

# A command in miniature: writes a file inside a held block, then waits to be stopped.
PROGRAM = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from sto_odno_env.tools import cli

    out = Path(sys.argv[1])
    try:
        with cli.stopping() as stop:
            with stop.held():
                print("writing", flush=True)
                time.sleep(float(sys.argv[2]))  # the signal comes now and waits
                with cli.atomic_open(out / "done.txt") as handle:
                    handle.write("whole")
            print("waiting", flush=True)
            time.sleep(60)
    except cli.Stopped as stopped:
        sys.exit(cli.stopped(stopped, "done.txt kept", prog="mini"))
    """
)


def _run(tmp_path: Path, stop: int, hold: float) -> tuple[Stopped, str]:
    command = [sys.executable, "-c", PROGRAM, str(tmp_path), str(hold)]
    writing = lines_starting("writing\n", stream="stdout")
    run = stop_when_ready(command, stop, writing, cwd=Path(__file__).resolve().parents[1])
    return run, run.read + run.stdout + run.stderr


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_after_the_held_block_with_one_line_and_130(
    tmp_path: Path, stop: int
) -> None:
    run, text = _run(tmp_path, stop, hold=1.0)
    assert run.returncode == cli.EXIT_STOPPED == 130, text
    assert_stopped(run)
    # The held block finished (the file is whole) and the stop came right after it.
    assert "waiting" not in text, text
    assert text.endswith(f"mini: stopped by {stop_name(stop)}: done.txt kept\n"), text
    assert (tmp_path / "done.txt").read_text() == "whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["done.txt"]


def test_stopping_restores_the_previous_handlers() -> None:
    before = {number: signal.getsignal(number) for number in cli.STOP_SIGNALS}
    with cli.stopping() as stop:
        assert all(signal.getsignal(n) == stop.handle for n in cli.STOP_SIGNALS)
    assert {number: signal.getsignal(number) for number in cli.STOP_SIGNALS} == before


def test_a_signal_raises_stopped_at_once_outside_a_held_block() -> None:
    with pytest.raises(cli.Stopped) as caught, cli.stopping():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(10)  # the handler raises before this ends
    assert caught.value.signum == signal.SIGTERM and caught.value.name == "SIGTERM"
    assert isinstance(caught.value, KeyboardInterrupt)  # Ctrl-C's clean-up code runs too


def test_a_deferred_signal_waits_until_the_message_in_the_pipe_is_read_whole() -> None:
    """Ctrl-C while a message is read: the handler runs once the message is whole, though
    the kernel hands the signal to another thread, and the pipe stays in step."""
    reader, writer = multiprocessing.Pipe(duplex=False)
    first, second = bytes(range(256)) * 4096, b"the next message"

    def write() -> None:  # the Connection format: a 4-byte length, then the bytes
        os.write(writer.fileno(), struct.pack("!i", len(first)) + first[:1000])
        time.sleep(0.2)  # the reader is waiting for the rest of the message
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)
        os.write(writer.fileno(), first[1000:])
        writer.send_bytes(second)

    received = []
    writing = threading.Thread(target=write, daemon=True)  # blocks if the reading stops
    with cli.stopping():
        writing.start()
        with pytest.raises(cli.Stopped), cli.deferred():
            received.append(reader.recv_bytes())
    assert received == [first]
    writing.join(timeout=10)
    assert reader.poll(5) and reader.recv_bytes() == second


def test_atomic_open_leaves_the_old_file_when_the_block_is_stopped(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text("old")
    with pytest.raises(cli.Stopped), cli.atomic_open(path) as handle:
        handle.write("half")
        raise cli.Stopped(signal.SIGINT)
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]


def test_stop_child_ends_a_child_with_sigterm_and_kills_one_that_ignores_it():
    polite = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    started = time.monotonic()
    cli.stop_child(polite, timeout=10)
    assert polite.returncode == -signal.SIGTERM and time.monotonic() - started < 10
    stubborn = subprocess.Popen(
        [sys.executable, "-c", "import signal, sys, time\n"
         "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint(flush=True)\ntime.sleep(60)"],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    assert stubborn.stdout is not None and stubborn.stdout.readline() == b"\n"  # ignoring now
    cli.stop_child(stubborn, timeout=0.5)
    assert stubborn.returncode == -signal.SIGKILL


def test_require_names_the_extras_of_a_missing_module_in_the_callers_error() -> None:
    assert cli.require("json", "reading JSON needs json", "dev", ValueError).dumps([1]) == "[1]"
    with pytest.raises(LookupError) as raised:
        cli.require("sto_odno_no_such_module", "the thing needs it", "train,dist", LookupError)
    install = f"{cli.python_command()} -m pip install -e '.[train,dist]'"
    assert str(raised.value) == f"the thing needs it: {install}"


@pytest.mark.parametrize(
    ("argv", "wrong"),
    [
        (["--players", "0"], "0 is out of range"),
        (["--matches", "0"], "0 is out of range"),
        (["--seed", "-1"], "-1 is out of range"),
    ],
)
def test_table_and_deal_arguments_refuse_a_value_out_of_range(argv, wrong, capsys) -> None:
    parser = cli.parser("tool", "deals matches")
    cli.table_arguments(parser, players=2)
    cli.deal_arguments(parser, matches=10, per="per table", seed="seed of the deals")
    defaults = {"rules": "classic", "players": 2, "matches": 10, "seed": 0}
    assert vars(parser.parse_args([])) == defaults
    with pytest.raises(SystemExit) as raised:
        parser.parse_args(argv)
    assert raised.value.code == 2
    assert wrong in capsys.readouterr().err


def test_table_and_deal_arguments_without_a_default_require_one(capsys) -> None:
    parser = cli.parser("tool", "deals matches")
    cli.table_arguments(parser, players=None, counts="3 to 6")
    cli.deal_arguments(parser, matches=None, per="to record", seed="seed")
    assert parser.parse_args(["--players", "3", "--matches", "1"]).players == 3
    with pytest.raises(SystemExit):
        parser.parse_args([])
    assert "--players" in capsys.readouterr().err
    assert "(3 to 6)" in parser.format_help()
