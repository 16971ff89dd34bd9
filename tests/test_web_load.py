"""``scripts/web_load.py`` as a process: Ctrl-C or SIGTERM mid-run stops its clients and
its server, says in one line how many runs were measured (their rows printed above), and
exits 130 without a traceback."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import default_sigint

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # a server and its clients in subprocesses
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_mid_run_says_what_was_measured_in_one_line(stop: int) -> None:
    command = [sys.executable, "scripts/web_load.py", "--games", "2", "--seconds", "2"]
    command += ["--repeat", "3", "--agents", "random", "--think", "0.1"]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(3)]  # settings, header, run 1
        assert lines[1].startswith("agent (run)") and lines[2].startswith("random (1)"), lines
        time.sleep(0.5)  # into run 2
        started = time.monotonic()
        process.send_signal(stop)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert time.monotonic() - started < 10  # the clients and the server stop at once
    name = "Ctrl-C" if stop == signal.SIGINT else "SIGTERM"
    assert process.returncode == 130, err
    assert err == f"stopped by {name}: 1 of 3 runs measured; their rows are above\n", err
    assert "random (2)" not in out  # a run cut short is not reported as measured
