"""train/run/evaluations.py: when a run evaluates, at which player counts and how many
matches, and which evaluation is the best (``best.pt``)."""

from __future__ import annotations

from train.config import load_config
from train.run.evaluations import (
    Evaluations,
    best,
    by_update,
    describe,
    eval_counts,
    latest,
    matches,
    score,
)
from train.run.protocol import Counters


def row(update: int, rate: float, players: int = 2) -> dict[str, object]:
    return {"update": update, "rate": rate, "players": players, "low": rate - 0.1,
            "high": rate + 0.1, "opponent": "expert", "matches": 100}  # fmt: skip


def test_an_evaluation_plays_each_count_of_the_mix_in_whole_duplicate_deals() -> None:
    assert eval_counts(load_config(None, {"players": 3}, [])) == [3]
    mix = load_config(None, {"players_mix": [2, 4], "eval_matches": 10}, [])
    assert eval_counts(mix) == [2, 4]
    assert [matches(mix)(players) for players in (2, 4)] == [10, 8]  # whole deals of seats


def test_an_update_is_evaluated_once_and_only_with_evaluations_on() -> None:
    on = Evaluations(load_config(None, {"eval_every_minutes": 5}, []), rules=None)
    counters = Counters(update=3)
    assert on.wanted(counters) and not on.due()  # just started: not due yet
    counters.evaluations.append(row(3, 0.5))
    assert not on.wanted(counters)
    off = Evaluations(load_config(None, {"eval_every_minutes": 0}, []), rules=None)
    assert not off.enabled and not off.wanted(Counters()) and not off.due()


def test_the_best_is_the_first_highest_score_above_par_over_the_counts() -> None:
    rows = [row(1, 0.6, 2), row(1, 0.3, 3), row(2, 0.55, 2), row(2, 0.45, 3), row(3, 0.7, 2),
            row(3, 0.2, 3)]  # fmt: skip
    assert [len(group) for group in by_update(rows)] == [2, 2, 2]
    assert round(score(rows[2:4]), 4) == round(((0.55 - 0.5) + (0.45 - 1 / 3)) / 2, 4)
    assert best(rows) == rows[2:4] and latest(rows) == rows[4:]
    assert best([row(1, 0.6), row(2, 0.6)]) == [row(1, 0.6)]  # ties: when best.pt was written
    assert latest([]) is None and best([]) is None


def test_an_evaluation_reads_as_its_rate_interval_opponent_and_matches() -> None:
    assert describe([row(1, 0.5)]) == "0.500 [0.400, 0.600] vs expert over 100 matches"
    exact = {**row(1, 0.5), "exact_reward": -0.25, "exploitability": 0.125}
    assert describe([exact]).endswith(", exact reward -0.2500, exploitability 0.1250")
