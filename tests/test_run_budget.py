"""train/run/budget.py: the deadline of ``minutes``, the room it leaves, the warm start it
refuses, and the speed lines after the first updates."""

from __future__ import annotations

import time

import pytest

from train.config import load_config
from train.run.budget import SETTLE_UPDATES, Budget, BudgetError


def budget(minutes: float, started_ago: float = 0.0, **keys: object) -> Budget:
    config = load_config(None, {"minutes": minutes, **keys}, [])
    return Budget(config, time.monotonic() - started_ago)


def test_without_minutes_the_budget_never_runs_out() -> None:
    free = budget(0)
    assert free.left() == float("inf") and free.room_for_update(reserve=1e9)
    assert "no time limit" in free.header()


def test_minutes_count_from_the_commands_start() -> None:
    late = budget(1, started_ago=50)
    assert 5 < late.left() <= 10
    late.update_seconds = 8
    assert not late.room_for_update(reserve=5)  # 8 s of update and 5 s of end don't fit
    assert "1 min for the whole command" in late.header()


def test_a_warm_start_longer_than_the_budget_is_refused_with_what_to_change() -> None:
    short = budget(1)
    short.warm_start_fits(30, reserve=5, what="1,000 decisions")  # fits: no error
    with pytest.raises(BudgetError, match="too short for the warm start") as refused:
        short.warm_start_fits(120, reserve=5, what="1,000 decisions")
    assert "warm_start=none" in str(refused.value)


def test_the_end_reserve_holds_the_final_evaluation_only_when_evaluations_are_on() -> None:
    assert budget(1, eval_every_minutes=0).end_reserve(30, 2) == 3
    assert budget(1, eval_every_minutes=5).end_reserve(30, 2) == 33


def test_the_speed_is_said_settling_first_then_once_measured() -> None:
    timed = budget(0)
    timed.update_seconds = 2.0
    (first,) = timed.speed_lines(1, 2000, 2000, reserve=0)
    assert "settling" in first and "1.0k decisions/s" in first
    lines = [timed.speed_lines(n, 4000, 4000 * n, reserve=0) for n in range(2, 3 + SETTLE_UPDATES)]
    said = [line for group in lines for line in group]
    assert len(said) == 1 and "2.0k decisions/s" in said[0]  # once, the held rate
