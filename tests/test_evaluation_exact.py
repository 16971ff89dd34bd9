"""train/run/evaluate.py's exact figures: a training evaluation on a rule set whose tree the
exact tools walk gains the policy's NashConv and exploitability (evaluations.csv's
columns, the console line); on any other rule set it is left as it was."""

from __future__ import annotations

import pytest

from agents.exact import evaluate as exact_evaluate
from sto_odno_env.bots.registry import load
from sto_odno_env.game.rules import load_rules
from train.run.evaluate import Evaluation, ExactTable
from train.run.evaluations import describe

pytest.importorskip("torch")


def plain(opponent: str = "expert") -> Evaluation:
    return Evaluation(opponent, 100, 0.5, 0.4, 0.6, 0.0, 2)


def test_a_small_rule_set_gets_the_exact_figures():
    agent, opponent = load("expert", "micro", 2), load("random", "micro", 2)
    measured = ExactTable(load_rules("micro"), 2).measure(plain("random"), agent, opponent)
    expected = exact_evaluate([agent], "micro")
    assert measured.nash_conv == pytest.approx(expected.nash_conv)
    # the exact counterpart of mean_reward: expert in each seat against random
    seated = [
        exact_evaluate([agent, opponent], "micro"),
        exact_evaluate([opponent, agent], "micro"),
    ]
    assert measured.exact_reward == pytest.approx((seated[0].values[0] + seated[1].values[1]) / 2)
    assert measured.exact_reward > 0
    assert measured.exploitability == pytest.approx(expected.exploitability)
    row = measured.row(update=3, step=10, minutes=0.5)
    assert row["nash_conv"] == round(expected.nash_conv, 6)
    assert "exact: reward +" in measured.describe()
    assert "exploitability" in describe([row])


def test_a_large_rule_set_is_left_as_it_was():
    table = ExactTable(load_rules("classic"), 2)
    evaluation = plain()
    expert = load("expert", "classic", 2)
    assert table.measure(evaluation, expert, expert) is evaluation
    assert table.tree is None  # refused once, by the deal's size
    assert "nash_conv" not in evaluation.row(update=0, step=0, minutes=0.0)
