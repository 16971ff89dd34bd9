"""lab/tools/search_timing.py times each agent's own decisions and refuses a bad agent."""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import default_sigint, needs

SCRIPT = Path(__file__).resolve().parents[2] / "lab" / "tools" / "search_timing.py"


def timing_module():
    spec = importlib.util.spec_from_file_location("search_timing", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs("torch")
def test_it_prints_one_row_per_agent_with_its_decisions(capsys):
    assert timing_module().main(["--agents", "expert,rollout:samples=4", "--matches", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split("|")[1].strip(): line.split("|")[2:] for line in lines if "| `" in line}
    assert set(rows) == {"`expert`", "`rollout:samples=4`"}
    for cells in rows.values():
        decisions, mean, median, p95, longest = (float(cell) for cell in cells[:5])
        assert decisions > 0 and mean > 0 and median <= p95 <= longest


@needs("torch")
def test_a_bad_agent_is_refused_naming_what_is_allowed(capsys):
    assert timing_module().main(["--agents", "nobody", "--matches", "1"]) == 2
    error = capsys.readouterr().err
    assert "unknown agent 'nobody'" in error and "allowed" in error


@pytest.mark.slow  # a command in a subprocess
@needs("torch")
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_prints_the_partial_table_and_one_line(stop):
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--agents", "expert", "--matches", "100000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    try:
        assert process.stderr.readline() == "timing expert\n"
        time.sleep(1.0)
        process.send_signal(stop)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    name = "Ctrl-C" if stop == signal.SIGINT else "SIGTERM"
    assert process.returncode == 130, err
    assert (
        err == f"stopped by {name}: the table above holds the decisions timed before it (partial)\n"
    ), err
    assert "| `expert` |" in out
