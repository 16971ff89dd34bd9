"""lab/tools/search_timing.py times each agent's own decisions and refuses a bad agent."""

from __future__ import annotations

import importlib.util
import signal
import sys
from pathlib import Path

import pytest

from tests.helpers import assert_stopped, lines_starting, needs, stop_name, stop_when_ready

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
    command = [sys.executable, str(SCRIPT), "--agents", "expert", "--matches", "100000"]
    timing = lines_starting("timing expert\n")
    run = stop_when_ready(command, stop, timing, cwd=SCRIPT.parents[2], settle=1.0)
    assert_stopped(run)
    message = "the table above holds the decisions timed before it (partial)"
    assert run.stderr == f"stopped by {stop_name(stop)}: {message}\n", run.stderr
    assert "| `expert` |" in run.stdout
