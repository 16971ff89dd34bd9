"""``scripts/web_load.py`` as a process: Ctrl-C or SIGTERM mid-run stops its clients and
its server, says in one line how many runs were measured (their rows printed above), and
exits 130 without a traceback."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from tests.helpers import assert_stopped, lines_starting, stop_name, stop_when_ready

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # a server and its clients in subprocesses
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_mid_run_says_what_was_measured_in_one_line(stop: int) -> None:
    command = [sys.executable, "scripts/web_load.py", "--games", "2", "--seconds", "2"]
    command += ["--repeat", "3", "--agents", "random", "--think", "0.1"]

    # the settings, the table's header and run 1's row
    run_one_measured = lines_starting("", "agent (run)", "random (1)", stream="stdout")
    run = stop_when_ready(command, stop, run_one_measured, cwd=ROOT, settle=0.5)  # into run 2
    assert run.seconds < 10  # the clients and the server stop at once
    assert_stopped(run)
    message = "1 of 3 runs measured; their rows are above"
    assert run.stderr == f"stopped by {stop_name(stop)}: {message}\n", run.stderr
    assert "random (2)" not in run.stdout  # a run cut short is not reported as measured
