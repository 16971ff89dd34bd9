"""train/run/console.py: the run's lines, its numbers as they are written, and a phase's
progress off a terminal (a plain line, not tqdm's redraws)."""

from __future__ import annotations

import pytest

from train.run.console import Console, duration, rate


def test_rates_and_durations_read_as_the_lines_show_them() -> None:
    assert rate(950) == "950 decisions/s" and rate(12_345) == "12.3k decisions/s"
    assert duration(42) == "42 s" and duration(90) == "1.5 min"


def test_lines_go_to_stdout_and_errors_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    console = Console(interactive=False)
    console.say("update 1")
    console.error("minutes=0.1 is too short")
    out, err = capsys.readouterr()
    assert out == "update 1\n" and err == "error: minutes=0.1 is too short\n"


def test_off_a_terminal_a_phase_reports_as_lines(capsys: pytest.CaptureFixture[str]) -> None:
    console = Console(interactive=False, log_every=0.0)
    with console.bar("warm start", 100, "decisions") as bar:
        assert not bar.drawn and not console.bars
        bar.advance(40, note="loss 0.5")
    assert capsys.readouterr().out == "  warm start: 40/100 decisions (loss 0.5)\n"
