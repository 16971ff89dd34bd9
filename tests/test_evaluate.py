"""The evaluation harness (``agents.stats``, ``agents.arena``, ``agents.evaluate``).

* Statistics on constructed outcomes: Wilson intervals against known values and their
  defining equation, head-to-head tables (ties count ½), per-agent summaries, OpenSkill.
* Duplicate deals: the schedule holds every deal once per seat rotation, and the engine
  really deals the same cards to the same seats in every rotation (and every round).
* Matches in the arena: a bot against a copy of itself is exactly even under duplicate
  deals; results do not depend on the batch size.
* The CLI ``python -m agents.evaluate``: files and their contents, other player counts,
  ladders and presets, and clear errors for bad ``--agents``.
"""

from __future__ import annotations

import csv
import fcntl
import json
import math
import os
import re
import signal
import struct
import subprocess
import sys
import termios
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import ExpertAgent, GreedyAgent, RandomAgent, save_policy
from agents.arena import Match, MatchResult, play
from agents.evaluate import EvaluationError, duplicate_schedule, evaluate, main, plan
from agents.stats import Z95, agent_summary, head_to_head, openskill_ratings, wilson
from sto_odno_env.bots.registry import split_agent_names
from sto_odno_env.game import engine
from sto_odno_env.views.observation import observe
from tests.helpers import Stopped, assert_stopped, needs, stop_name, stop_when_ready

ROOT = Path(__file__).resolve().parents[1]
EPS = 0.0  # wilson() clamps its bounds, so the interval holds the rate exactly


def result(seats, rewards, ranking=None, totals=None, points=None, rounds=None, resets=None):
    """A constructed MatchResult."""
    players = len(seats)
    rewards = np.asarray(rewards, dtype=np.float64)
    if ranking is None:
        ranking = sorted(range(players), key=lambda p: -rewards[p])
    return MatchResult(
        match=Match(0, tuple(seats)),
        rewards=rewards,
        ranking=list(ranking),
        totals=list(totals or [0] * players),
        truncated=False,
        rounds=1,
        round_points=np.asarray(points or [0] * players),
        rounds_in=np.asarray(rounds or [1] * players),
        resets=np.asarray(resets or [0] * players),
    )


# --- Wilson intervals -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        (50, 100, 0.4038, 0.5962),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (1, 10, 0.0179, 0.4042),
        (8, 10, 0.4902, 0.9433),
        (0, 1, 0.0, 0.7935),
        (500, 1000, 0.4691, 0.5309),
    ],
)
def test_wilson_known_values(successes, trials, low, high):
    got = wilson(successes, trials)
    assert got == pytest.approx((low, high), abs=5e-4)


def test_wilson_edges():
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(3, -1) == (0.0, 1.0)
    low, high = wilson(0, 10)
    assert low == pytest.approx(0.0, abs=1e-12) and 0 < high < 1
    low, high = wilson(10, 10)
    assert high == pytest.approx(1.0, abs=1e-12) and 0 < low < 1
    assert abs(Z95 - 1.959964) < 1e-6
    # Fractional successes (ties count ½): 5.5 of 11 is centred on ½.
    low, high = wilson(5.5, 11)
    assert low + high == pytest.approx(1.0)


@settings(max_examples=200, deadline=None)
@given(trials=st.integers(1, 2000), data=st.data())
def test_wilson_interval_properties(trials, data):
    halves = data.draw(st.integers(0, 2 * trials))
    successes = halves / 2
    p = successes / trials
    low, high = wilson(successes, trials)
    assert 0.0 <= low <= p + 1e-12 and p - 1e-12 <= high <= 1.0
    # Symmetric in successes and failures.
    other_low, other_high = wilson(trials - successes, trials)
    assert low == pytest.approx(1 - other_high, abs=1e-12)
    assert high == pytest.approx(1 - other_low, abs=1e-12)
    # The bounds solve the score test's equation n (p̂ − p0)² = z² p0 (1 − p0).
    for bound in (low, high):
        if 1e-12 < bound < 1 - 1e-12:
            left = trials * (p - bound) ** 2
            right = Z95**2 * bound * (1 - bound)
            assert left == pytest.approx(right, rel=1e-6, abs=1e-12)
    # More trials at the same rate give a narrower interval.
    wider = wilson(successes * 4, trials * 4)
    assert wider[1] - wider[0] < high - low


def test_wilson_contains_a_rate_of_zero_or_one_exactly():
    for trials in range(1, 201):
        assert wilson(0, trials)[0] == 0.0, trials
        assert wilson(trials, trials)[1] == 1.0, trials


# --- head to head, summaries, ratings on constructed outcomes ---------------------------------


def test_head_to_head_counts_ties_as_half():
    results = [
        result(("a", "b"), [1, -1]),  # a wins
        result(("b", "a"), [1, -1]),  # b wins
        result(("a", "b"), [0, 0]),  # tie
        result(("b", "a"), [-1, 1]),  # a wins
        result(("a", "c"), [-1, 1]),  # another pair: ignored
        result(("c", "b"), [1, -1]),  # another pair: ignored
    ]
    row = head_to_head(results, "a", "b")
    assert (row["agent"], row["opponent"]) == ("a", "b")
    assert (row["matches"], row["wins"], row["losses"], row["ties"]) == (4, 2, 1, 1)
    assert row["win_rate"] == pytest.approx(2.5 / 4)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(wilson(2.5, 4))
    assert row["mean_reward"] == pytest.approx(0.25)
    back = head_to_head(results, "b", "a")
    assert (back["wins"], back["losses"], back["ties"]) == (1, 2, 1)
    assert back["win_rate"] == pytest.approx(1 - row["win_rate"])
    assert back["mean_reward"] == pytest.approx(-0.25)
    # All ties: exactly one half.
    ties = [result(("a", "b"), [0, 0]) for _ in range(6)]
    assert head_to_head(ties, "a", "b")["win_rate"] == 0.5
    empty = head_to_head(results, "a", "z")
    assert empty["matches"] == 0 and math.isnan(empty["win_rate"])
    assert head_to_head(results, "a", "a")["matches"] == 0


def test_agent_summary_on_constructed_outcomes():
    results = [
        result(("a", "b", "c"), [1, 0, -1], points=[0, 10, 30], rounds=[3, 3, 3]),
        result(("b", "c", "a"), [1, 0, -1], points=[5, 20, 40], rounds=[2, 2, 2]),
        result(("c", "a", "b"), [0, 1, -1], points=[8, 0, 50], rounds=[1, 1, 1], resets=[1, 0, 0]),
    ]
    rows = {row["agent"]: row for row in agent_summary(results, ["a", "b", "c", "d"])}
    assert [rows[n]["matches"] for n in "abc"] == [3, 3, 3]
    assert rows["a"]["first_rate"] == pytest.approx(2 / 3)
    assert rows["b"]["first_rate"] == pytest.approx(1 / 3)
    assert rows["c"]["first_rate"] == 0.0
    assert (rows["a"]["first_ci_low"], rows["a"]["first_ci_high"]) == pytest.approx(wilson(2, 3))
    assert rows["a"]["mean_reward"] == pytest.approx((1 - 1 + 1) / 3)
    assert rows["a"]["reward_ci_low"] < rows["a"]["mean_reward"] < rows["a"]["reward_ci_high"]
    assert rows["a"]["points_per_round"] == pytest.approx((0 + 40 + 0) / (3 + 2 + 1))
    assert rows["c"]["resets_per_match"] == pytest.approx(1 / 3)
    assert rows["c"]["resets_per_round"] == pytest.approx(1 / 6)
    assert rows["d"]["matches"] == 0 and math.isnan(rows["d"]["first_rate"])
    # Every match has one first place.
    assert sum(rows[n]["first_rate"] * rows[n]["matches"] for n in "abc") == pytest.approx(3)


def test_openskill_orders_by_constructed_results():
    pytest.importorskip("openskill")
    results = []
    for i in range(30):
        seats = [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")][i % 3]
        rewards = [{"a": 1.0, "b": 0.0, "c": -1.0}[name] for name in seats]
        results.append(result(seats, rewards))
    ratings = openskill_ratings(results, ["a", "b", "c"])
    assert ratings["a"]["mu"] > ratings["b"]["mu"] > ratings["c"]["mu"]
    assert ratings["a"]["ordinal"] > ratings["b"]["ordinal"] > ratings["c"]["ordinal"]
    for rating in ratings.values():
        assert rating["ordinal"] == pytest.approx(rating["mu"] - 3 * rating["sigma"])
    # Draws only: nobody moves apart.
    draws = [result(("a", "b"), [0, 0]) for _ in range(10)]
    even = openskill_ratings(draws, ["a", "b"])
    assert even["a"]["mu"] == pytest.approx(even["b"]["mu"])


# --- duplicate deals ---------------------------------------------------------------------------


def test_duplicate_schedule_rotates_every_deal():
    schedule = duplicate_schedule([("x", "y", "z")], deals=5, seed=7)
    assert len(schedule) == 15
    by_seed = defaultdict(list)
    for match in schedule:
        by_seed[match.seed].append(match)
    assert len(by_seed) == 5
    for matches in by_seed.values():
        assert sorted(m.seats for m in matches) == sorted(
            [("x", "y", "z"), ("y", "z", "x"), ("z", "x", "y")]
        )
        assert len({m.deal for m in matches}) == 1
        # Each agent holds each seat once.
        for seat in range(3):
            assert sorted(m.seats[seat] for m in matches) == ["x", "y", "z"]
    assert duplicate_schedule([("x", "y")], 5, 7)[0].seed == schedule[0].seed  # seeds by seed
    assert {m.seed for m in duplicate_schedule([("x", "y")], 5, 8)}.isdisjoint(by_seed)


@pytest.mark.parametrize(
    ("names", "players", "matches", "pairs", "expected_pairs", "expected_matches"),
    [
        (["a", "b", "c"], 2, 40, "all", [("a", "b"), ("a", "c"), ("b", "c")], 120),
        (["a", "b", "c"], 2, 40, "ladder", [("a", "b"), ("b", "c")], 80),
        (["a", "b", "c", "d"], 2, 10, "ladder", [("a", "b"), ("b", "c"), ("c", "d")], 30),
        (["a", "b"], 2, 2, "all", [("a", "b")], 2),
        (["a", "b", "c"], 4, 40, "all", [], 40),
        (["a", "b"], 3, 30, "all", [], 30),
        (["a", "b", "c", "d", "e", "f"], 6, 12, "all", [], 12),
    ],
)
def test_plan(names, players, matches, pairs, expected_pairs, expected_matches):
    schedule, pairings = plan(names, players, matches, pairs, seed=3)
    assert pairings == expected_pairs
    assert len(schedule) == expected_matches
    assert all(len(m.seats) == players for m in schedule)
    if players == 2:
        for first, second in pairings:
            games = [m for m in schedule if set(m.seats) == {first, second}]
            assert len(games) == matches
            seats = Counter((m.seed, m.seats) for m in games)
            assert all(count == 1 for count in seats.values())
            for seed in {m.seed for m in games}:
                assert seats[(seed, (first, second))] == seats[(seed, (second, first))] == 1
    else:
        table = tuple(names[i % len(names)] for i in range(players))
        by_seed = defaultdict(list)
        for match in schedule:
            by_seed[match.seed].append(match.seats)
        for rotations in by_seed.values():
            assert sorted(rotations) == sorted(table[k:] + table[:k] for k in range(players))


@pytest.mark.parametrize(
    ("players", "matches", "allowed"), [(2, 41, "40 or 42"), (4, 41, "40 or 44"), (3, 1, "3")]
)
def test_match_counts_that_are_not_whole_duplicate_sets_are_refused(players, matches, allowed):
    # Rounding up silently would play more matches than asked for.
    with pytest.raises(EvaluationError, match=f"matches {matches} .*allowed: e.g. {allowed}$"):
        plan(["a", "b", "c"], players, matches, "all", seed=0)


@pytest.mark.parametrize(("preset", "players"), [("classic", 2), ("encyclopedia", 3)])
def test_duplicate_deals_reuse_the_cards(preset, players):
    """Every rotation of a deal starts with the same dealer and deck (engine traces)."""
    names = ["a", "b", "c"][:players] if players > 2 else ["a", "b"]
    schedule, _ = plan(names, players, 12, "all", seed=5)
    trace = engine.Trace(len(schedule))
    engine.init(preset, players, len(schedule), seeds=[m.seed for m in schedule], trace=trace)
    first_round = defaultdict(set)
    for index, match in enumerate(schedule):
        event = next(e for e in trace.current[index] if e["type"] == "round")
        assert event["round"] == 0
        first_round[match.seed].add((event["dealer"], tuple(event["deck"])))
    assert len(first_round) == len({m.seed for m in schedule}) > 1
    for deals in first_round.values():
        assert len(deals) == 1, "rotations of one deal got different cards"
    decks = {next(iter(d))[1] for d in first_round.values()}
    assert len(decks) == len(first_round)  # and different deals differ


def test_later_rounds_deal_the_same_cards_whatever_was_played():
    """Two games of one seed played by different bots: round r has the same deck in both."""
    seed = 12345
    trace = engine.Trace(2)
    state = engine.init("classic", 2, 2, seeds=[seed, seed], trace=trace)
    bots = [RandomAgent(seed=0), ExpertAgent("classic")]
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        actions = np.zeros(live.size, dtype=np.int64)
        for row, game in enumerate(live):
            obs = observe(state, games=np.array([game]))[0]
            actions[row] = bots[game](obs, state.legal[game])
        engine.step(state, actions, games=live, trace=trace)
    assert len(trace.matches) == 2
    rounds = [
        {e["round"]: tuple(e["deck"]) for e in match if e["type"] == "round"}
        for match in trace.matches
    ]
    common = set(rounds[0]) & set(rounds[1])
    assert len(common) >= 2
    for r in common:
        assert rounds[0][r] == rounds[1][r]


def test_a_bot_against_a_copy_of_itself_is_even():
    """Deterministic and identical bots under duplicate deals: each deal's two rotations
    mirror each other, so the win rate is exactly ½ and the interval covers it."""
    schedule, pairings = plan(["greedy", "greedy2"], 2, 300, "all", seed=1)
    bots = {"greedy": GreedyAgent(), "greedy2": GreedyAgent()}
    results = play("classic", 2, bots, schedule)
    row = head_to_head(results, *pairings[0])
    assert row["matches"] == 300
    assert row["win_rate"] == 0.5
    assert row["ci_low"] < 0.5 < row["ci_high"]
    assert row["ci_high"] - row["ci_low"] < 0.12
    by_seed = defaultdict(list)
    for res in results:
        by_seed[res.match.seed].append(res)
    for first, second in by_seed.values():
        np.testing.assert_array_equal(first.rewards, second.rewards)  # the same seat wins
        assert first.totals == second.totals


def test_random_bots_against_each_other_are_about_even():
    schedule, _ = plan(["r1", "r2"], 2, 60, "all", seed=2)
    results = play("classic", 2, {"r1": RandomAgent(seed=1), "r2": RandomAgent(seed=2)}, schedule)
    row = head_to_head(results, "r1", "r2")
    assert row["matches"] == 60
    assert row["ci_low"] < 0.5 < row["ci_high"]


def test_play_results_do_not_depend_on_the_batch():
    schedule, _ = plan(["expert", "greedy"], 2, 30, "all", seed=4)
    bots = {"expert": ExpertAgent(), "greedy": GreedyAgent()}
    big = play("classic", 2, bots, schedule)
    small = play("classic", 2, bots, schedule, batch=7)
    assert [r.match for r in big] == schedule == [r.match for r in small]
    for a, b in zip(big, small, strict=True):
        np.testing.assert_array_equal(a.rewards, b.rewards)
        assert (a.ranking, a.totals, a.rounds, a.decisions) == (
            b.ranking,
            b.totals,
            b.rounds,
            b.decisions,
        )
        np.testing.assert_array_equal(a.round_points, b.round_points)


def test_play_rejects_bad_schedules():
    bots = {"a": GreedyAgent(), "b": GreedyAgent()}
    with pytest.raises(ValueError, match="seats 3 agents for 2 players"):
        play("classic", 2, bots, [Match(1, ("a", "b", "a"))])
    with pytest.raises(ValueError, match="unknown agent 'c'"):
        play("classic", 2, bots, [Match(1, ("a", "c"))])


def test_openskill_puts_expert_above_random():
    pytest.importorskip("openskill")
    report = evaluate(["random", "expert", "greedy"], "classic", 3, 30, seed=0, progress=False)
    ratings = {row["agent"]: row for row in report["agents"]}
    assert ratings["expert"]["openskill_mu"] > ratings["random"]["openskill_mu"]
    assert ratings["greedy"]["openskill_mu"] > ratings["random"]["openskill_mu"]
    assert ratings["expert"]["openskill_ordinal"] > ratings["random"]["openskill_ordinal"]


# --- the CLI -----------------------------------------------------------------------------------


def read_csv(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def check_outputs(out: Path, players: int, expected_matches: int) -> dict:
    report = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert report["players"] == players
    assert report["matches"] == expected_matches
    assert report["truncated"] <= report["matches"]
    assert report["mean_decisions"] > 0
    for row in report["head_to_head"]:
        assert row["wins"] + row["losses"] + row["ties"] == row["matches"]
        assert 0 <= row["ci_low"] <= row["win_rate"] + EPS
        assert row["win_rate"] - EPS <= row["ci_high"] <= 1
        assert row["win_rate"] == pytest.approx((row["wins"] + row["ties"] / 2) / row["matches"])
        assert -1 <= row["mean_reward"] <= 1
    for row in report["agents"]:
        assert row["matches"] > 0
        assert 0 <= row["first_ci_low"] <= row["first_rate"] + EPS
        assert row["first_rate"] - EPS <= row["first_ci_high"] <= 1
        assert row["reward_ci_low"] <= row["mean_reward"] <= row["reward_ci_high"]
        assert -1 <= row["mean_reward"] <= 1
        assert row["points_per_round"] >= 0 and row["resets_per_match"] >= 0
        assert {"openskill_mu", "openskill_sigma", "openskill_ordinal"} <= set(row)
    # Every match has one winner and each seat is one agent's.
    firsts = sum(row["first_rate"] * row["matches"] for row in report["agents"])
    assert firsts == pytest.approx(report["matches"])
    assert sum(row["matches"] for row in report["agents"]) == players * report["matches"]
    # The CSV files hold the same rows.
    pairs = read_csv(out / "pairs.csv")
    assert len(pairs) == len(report["head_to_head"])
    for line, row in zip(pairs, report["head_to_head"], strict=True):
        assert (line["agent"], line["opponent"]) == (row["agent"], row["opponent"])
        assert int(line["matches"]) == row["matches"]
        assert float(line["win_rate"]) == pytest.approx(row["win_rate"])
    # agents.csv holds the columns that compare like with like; every field is explained
    agents_csv = read_csv(out / "agents.csv")
    compared = [row for row in report["agents"] if row["agent"] != report["against"]]
    assert [line["agent"] for line in agents_csv] == [row["agent"] for row in compared]
    assert list(agents_csv[0]) == report["comparable"]
    for line, row in zip(agents_csv, compared, strict=True):
        assert int(line["matches"]) == row["matches"]
        for field in report["comparable"][1:]:
            assert float(line[field]) == pytest.approx(row[field])
    for row in report["head_to_head"] + report["agents"]:
        assert set(row) <= set(report["columns"]), set(row) - set(report["columns"])
    png = (out / "winrates.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 2000
    return report


@pytest.mark.slow  # a command in a subprocess
@needs("tqdm", "openskill", "matplotlib")  # the bar, the ratings, winrates.png
def test_cli_two_players_every_pair(tmp_path):
    out = tmp_path / "eval"
    command = [sys.executable, "-m", "agents.evaluate", "--agents", "expert,greedy,random"]
    command += ["--matches", "40", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "| expert | greedy | 40 |" in done.stdout
    assert "wrote" in done.stdout and "results.json" in done.stdout
    report = check_outputs(out, players=2, expected_matches=120)
    assert report["rules"] == "classic" and report["deals"] == 20
    pairs = {(r["agent"], r["opponent"]): r for r in report["head_to_head"]}
    assert set(pairs) == {("expert", "greedy"), ("expert", "random"), ("greedy", "random")}
    assert all(r["matches"] == 40 for r in pairs.values())
    assert pairs[("expert", "random")]["win_rate"] > 0.9
    assert pairs[("greedy", "random")]["win_rate"] > 0.9
    assert {r["agent"]: r["matches"] for r in report["agents"]} == {
        "expert": 80,
        "greedy": 80,
        "random": 80,
    }


@needs("openskill")  # the report rates every agent
def test_cli_four_players(tmp_path, capsys):
    out = tmp_path / "four"
    argv = ["--agents", "expert,greedy,random", "--players", "4", "--matches", "40"]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    report = check_outputs(out, players=4, expected_matches=40)
    assert report["head_to_head"] == [] and report["deals"] == 10
    # The table (expert, greedy, random, expert): expert holds two seats of every match.
    assert {r["agent"]: r["matches"] for r in report["agents"]} == {
        "expert": 80,
        "greedy": 40,
        "random": 40,
    }
    assert read_csv(out / "pairs.csv") == []
    assert "4 players · 40 matches" in capsys.readouterr().out


@needs("openskill")  # the report rates every agent
def test_cli_ladder_and_another_preset(tmp_path):
    out = tmp_path / "ladder"
    argv = ["--agents", "random, greedy ,expert", "--pairs", "ladder", "--rules", "ukrainian"]
    assert main([*argv, "--matches", "16", "--seed", "9", "--out", str(out), "--no-progress"]) == 0
    report = check_outputs(out, players=2, expected_matches=32)
    assert report["rules"] == "ukrainian" and report["seed"] == 9
    assert [(r["agent"], r["opponent"]) for r in report["head_to_head"]] == [
        ("random", "greedy"),
        ("greedy", "expert"),
    ]
    assert all(r["matches"] == 16 for r in report["head_to_head"])


def test_cli_three_players_yard_with_a_checkpoint(tmp_path):
    torch = pytest.importorskip("torch")
    from sto_odno_env.bots.checkpoint import build_network
    from sto_odno_env.game.cards import NUM_ACTIONS
    from sto_odno_env.views.observation import OBS_SIZE

    torch.manual_seed(0)
    policy = tmp_path / "policy.pt"
    network = build_network(OBS_SIZE, [16], NUM_ACTIONS)
    with torch.no_grad():  # play a card whenever one is legal (short matches)
        network[-1].bias[:36] += 10.0
    save_policy(policy, network, [16])
    out = tmp_path / "yard"
    argv = ["--agents", f"expert,{policy}", "--rules", "yard", "--players", "3"]
    assert main([*argv, "--matches", "9", "--out", str(out), "--no-progress"]) == 0
    report = check_outputs(out, players=3, expected_matches=9)
    assert [r["agent"] for r in report["agents"]] == ["expert", str(policy)]
    assert [r["matches"] for r in report["agents"]] == [18, 9]


@needs("openskill")  # the report rates every agent
def test_evaluate_is_deterministic():
    first = evaluate(["expert", "random"], "nines", 2, 10, seed=3, progress=False)
    second = evaluate(["expert", "random"], "nines", 2, 10, seed=3, progress=False)
    for key in ("head_to_head", "agents"):
        assert first[key] == second[key]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "expert,minimax"], "unknown agent 'minimax'"),
        (["--agents", "expert"], "--agents needs at least two agents"),
        (["--agents", "expert, ,"], "--agents needs at least two agents"),
        (["--agents", "greedy:samples=3,expert"], "only rollout and search take parameters"),
        (["--agents", "rollout:depth=2,expert"], "bad parameter 'depth=2'"),
        (["--agents", "expert,missing/policy.pt"], "'missing/policy.pt' does not exist"),
        (["--agents", "expert,random", "--matches", "0"], "allowed: an integer from 1"),
        (["--agents", "expert,random", "--players", "9"], "players: 9 is not allowed"),
        (["--agents", "expert,random", "--rules", "bridge"], "neither a preset"),
        (["--agents", "expert,random", "--pairs", "some"], "invalid choice"),
    ],
)
def test_cli_bad_arguments_exit_with_a_clear_message(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--no-progress"])
    assert exit_info.value.code != 0
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    "agents_arg", ["rollout:samples=0,expert", "greedy,greedy"], ids=["budget", "duplicate"]
)
def test_cli_rejects_bad_agent_lists_with_a_usage_error(agents_arg, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--agents", agents_arg, "--matches", "4", "--no-progress"])
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


@pytest.mark.slow  # a command in a subprocess
def test_cli_bad_agents_in_a_subprocess():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "agents.evaluate", "--agents", "expert,alphazero"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "unknown agent 'alphazero'" in done.stderr
    assert "Traceback" not in done.stderr


# --- optional packages ------------------------------------------------------------------------


def without(tmp_path: Path, *modules: str) -> dict[str, str]:
    """An environment whose Python cannot import ``modules`` (a sitecustomize puts None in
    sys.modules for them), as an install without the eval extra."""
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    lines = ["import sys"] + [f"sys.modules[{module!r}] = None" for module in modules]
    (site / "sitecustomize.py").write_text("\n".join(lines) + "\n")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}


def evaluate_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "agents.evaluate", "--agents", "expert,greedy,random"]
    return subprocess.run(
        [*command, "--matches", "40", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_cli_without_openskill_says_so_before_playing(tmp_path):
    """With the train extra alone (no openskill) the command used to play every match, then
    die with ModuleNotFoundError and write nothing; now it names the package and the extra
    at once: exit 2, no traceback, no match played, no --out directory created."""
    out = tmp_path / "eval"
    done = evaluate_cli(without(tmp_path, "openskill"), "--out", str(out))
    assert done.returncode == 2, done.stderr
    assert "openskill (the OpenSkill ratings)" in done.stderr
    assert "pip install 'sto-odno-env[eval]'" in done.stderr
    assert "Traceback" not in done.stderr
    assert "%|" not in done.stderr and "playing" not in done.stderr  # no match started
    assert done.stdout == ""
    assert not out.exists()


def test_cli_names_every_missing_package_for_what_was_asked(tmp_path):
    env = without(tmp_path, "openskill", "tqdm", "matplotlib")
    # On a terminal the bar is drawn, with tqdm
    code, stderr = on_a_terminal(env, "--out", str(tmp_path / "eval"))
    assert code == 2, stderr
    for name in ("openskill", "tqdm", "matplotlib"):
        assert name in stderr
    assert "--no-progress goes without" in stderr
    assert not (tmp_path / "eval").exists()
    # off a terminal (a log, a pipe) progress is plain lines: no tqdm needed
    done = evaluate_cli(env, "--out", str(tmp_path / "eval"))
    assert done.returncode == 2
    assert "openskill" in done.stderr and "matplotlib" in done.stderr
    assert "tqdm" not in done.stderr
    # no --out and no bar: only openskill is needed
    done = evaluate_cli(env, "--no-progress")
    assert done.returncode == 2
    assert "openskill" in done.stderr and "tqdm" not in done.stderr
    assert "matplotlib" not in done.stderr


def test_cli_runs_without_tqdm_and_matplotlib_when_it_needs_neither(tmp_path):
    done = evaluate_cli(without(tmp_path, "tqdm", "matplotlib"), "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "| expert | greedy | 40 |" in done.stdout and "OpenSkill" in done.stdout


def test_evaluate_checks_its_packages_before_playing(monkeypatch, tmp_path):
    import agents.evaluate as harness

    def no_play(*args, **kwargs):
        raise AssertionError("matches played before the missing package was named")

    monkeypatch.setattr(harness, "play", no_play)
    monkeypatch.setitem(sys.modules, "openskill", None)
    with pytest.raises(EvaluationError, match=r"openskill .*sto-odno-env\[eval\]"):
        evaluate(["expert", "random"], "classic", 2, 4, seed=0, progress=False)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    report = {"rules": "classic", "players": 2, "matches": 0, "head_to_head": [], "agents": []}
    with pytest.raises(EvaluationError, match="matplotlib"):
        harness.write_outputs(report, tmp_path / "out")
    assert not (tmp_path / "out").exists()  # nothing half-written


def test_against_puts_each_agent_alone_against_a_table_of_the_bot():
    schedule, pairings = plan(["expert", "greedy"], 3, 6, "all", seed=1, against="random")
    assert pairings == []
    for name in ("expert", "greedy"):
        tables = [m for m in schedule if name in m.seats]
        assert len(tables) == 6  # 2 deals x 3 rotations
        for match in tables:
            assert match.seats.count(name) == 1
            assert match.seats.count("random") == 2
        # every deal in every rotation: the agent holds each seat of each deal once
        assert sorted((m.deal, m.seats.index(name)) for m in tables) == [
            (d, s) for d in range(2) for s in range(3)
        ]


def test_against_on_the_command_line_reports_the_first_place_share(capsys):
    argv = ["--agents", "expert", "--against", "random", "--players", "3"]
    assert main([*argv, "--matches", "30", "--seed", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "each agent alone against 2 × random" in out
    row = next(line for line in out.splitlines() if line.startswith("| expert |"))
    first = float(row.split("|")[3])
    assert first > 0.8  # the expert alone wins nearly every match against random play


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--agents", "expert", "--against", "expert"], "also in --agents"),
        (["--agents", "expert", "--against", "random,greedy"], "takes one agent"),
    ],
)
def test_against_refuses_bad_tables(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--no-progress"])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    "text, names",
    [
        ("expert,greedy", ["expert", "greedy"]),
        ("rollout:samples=2,horizon=4,expert", ["rollout:samples=2,horizon=4", "expert"]),
        (
            " search:samples=4,pool=2 , rollout:samples=3,margin=0.5,outcome=table ",
            ["search:samples=4,pool=2", "rollout:samples=3,margin=0.5,outcome=table"],
        ),
        ("horizon=4,expert", ["horizon=4", "expert"]),  # no name before: refused on load
        ("expert,runs/lr=3e-4/policy.pt", ["expert", "runs/lr=3e-4/policy.pt"]),
    ],
)
def test_agent_lists_keep_each_agents_parameters_together(text, names):
    assert split_agent_names(text) == names


def test_an_agent_with_several_parameters_plays_from_the_command_line(capsys):
    argv = ["--agents", "rollout:samples=2,horizon=4", "--against", "random", "--players", "2"]
    assert main([*argv, "--matches", "4", "--seed", "3", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert any(line.startswith("| rollout:samples=2,horizon=4 |") for line in out.splitlines())


# --- stopping and progress off a terminal ----------------------------------------------------


def stop_evaluation(out: Path, signum: int, *extra: str, settle: float) -> Stopped:
    """``agents.evaluate`` playing expert against random into ``out``, stopped by ``signum``
    ``settle`` seconds after it says it is playing (the matches under way)."""

    def playing(process: subprocess.Popen[str]) -> str:
        first = process.stderr.readline()
        assert first.startswith("playing 2000000 matches (expert, random"), first
        assert out.is_dir()  # made at the start, so that a bad path fails at once
        return first

    command = [sys.executable, "-m", "agents.evaluate", "--agents", "expert,random"]
    command += ["--matches", "2000000", "--batch", "64", "--out", str(out), *extra]
    env = {"PYTHONPATH": str(ROOT)}
    return stop_when_ready(command, signum, playing, cwd=ROOT, env=env, settle=settle)


@pytest.mark.slow  # a command in a subprocess
@needs("openskill", "matplotlib")
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_during_the_matches_says_so_in_one_line_and_leaves_no_folder(tmp_path, stop):
    """Ctrl-C or SIGTERM while the matches are played: exit 130, one line saying how many
    were played and that nothing was written, no traceback, and no --out folder (nor the
    parent it made). Progress off a terminal is plain lines, never ``\\r``-joined."""
    run = stop_evaluation(tmp_path / "runs" / "evalint", stop, settle=1.5)
    assert_stopped(run)
    assert "\r" not in run.stderr, run.stderr
    assert re.fullmatch(
        rf"stopped by {stop_name(stop)}: \d+ of 2000000 matches played; nothing written\n",
        run.stderr,
    ), run.stderr
    assert run.stdout == ""
    assert list(tmp_path.iterdir()) == []  # neither evalint/ nor the runs/ it made


@pytest.mark.slow  # a command in a subprocess
@needs("openskill")
def test_a_stop_keeps_a_folder_that_was_there_before(tmp_path):
    out = tmp_path / "eval"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    run = stop_evaluation(out, signal.SIGTERM, "--no-progress", settle=1.0)
    assert run.returncode == 130 and "nothing written" in run.stderr, run.stderr
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_a_bad_agent_leaves_no_out_folder(tmp_path, capsys):
    out = tmp_path / "new" / "eval"
    with pytest.raises(SystemExit) as caught:
        main(["--agents", "expert,alphazero", "--matches", "4", "--out", str(out)])
    assert caught.value.code == 2
    assert "unknown agent 'alphazero'" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def on_a_terminal(env: dict[str, str], *args: str) -> tuple[int, str]:
    """``agents.evaluate`` with its stderr on a pseudo-terminal: (exit code, stderr)."""
    main_fd, terminal = os.openpty()
    # 24 rows of 80 columns, as a terminal window (a new pseudo-terminal has 0 columns)
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    command = [sys.executable, "-m", "agents.evaluate", "--agents", "expert,greedy,random"]
    try:
        process = subprocess.Popen(
            [*command, "--matches", "40", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=terminal,
        )
    finally:
        os.close(terminal)
    chunks = []
    try:
        while True:  # read while it runs: a terminal holds little
            try:
                chunk = os.read(main_fd, 4096)
            except OSError:  # the other end is closed: all read
                break
            if not chunk:
                break
            chunks.append(chunk)
        code = process.wait(timeout=120)
    finally:
        os.close(main_fd)
        if process.poll() is None:
            process.kill()
            process.wait()
    return code, b"".join(chunks).decode()


@needs("tqdm", "openskill")
def test_on_a_terminal_the_progress_is_a_bar():
    code, stderr = on_a_terminal({**os.environ, "PYTHONPATH": str(ROOT)})
    assert code == 0, stderr
    assert "120/120" in stderr and "match/s" in stderr and "playing" not in stderr


class Foreign:
    """A class of someone else's, pickled in a torch file."""

    def __init__(self) -> None:
        self.weights = [1.0, 2.0]


class Planted:
    """A pickled call: unpickling it would run code (touch a file)."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


@needs("torch")
def test_a_corrupt_or_foreign_pt_for_agents_is_one_line_of_our_own(tmp_path, capsys):
    import torch

    from sto_odno_env.bots.checkpoint import build_network, network_sizes

    width, actions = network_sizes("classic")
    save_policy(tmp_path / "whole.pt", build_network(width, [8], actions), [8])
    raw = (tmp_path / "whole.pt").read_bytes()
    marker = tmp_path / "ran"
    files = {
        "truncated": raw[: len(raw) // 2],
        "random bytes": np.random.default_rng(0).bytes(4000),
    }
    for name, data in files.items():
        (tmp_path / f"{name}.pt").write_bytes(data)
    torch.save({"policy": Foreign()}, tmp_path / "foreign.pt")
    torch.save({"policy": Planted(str(marker))}, tmp_path / "planted.pt")
    expected = {
        "truncated": "it is not a readable torch file",
        "random bytes": "it is not a readable torch file",
        "foreign": f"it holds Python objects ({Foreign.__module__}.Foreign), which are never",
        "planted": "it holds Python objects (getattr), which are never loaded",
    }
    for name, reason in expected.items():
        path = tmp_path / f"{name}.pt"
        with pytest.raises(SystemExit) as caught:
            main(["--agents", f"{path},expert", "--matches", "4", "--no-progress"])
        assert caught.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err  # one line
        assert f"{str(path)!r} is not a policy or checkpoint of this kit: {reason}" in err, err
        assert "'format': 'sto-odno-policy'" in err  # what was expected
        assert "weights_only" not in err and "arbitrary code" not in err, err
    assert not marker.exists()  # the foreign file's code never ran


# --- what the output compares -----------------------------------------------------------------


def test_a_round_robin_shows_no_pooled_first_place_share_beside_the_rating(capsys):
    """In a ladder greedy meets random and expert meets only greedy: a pooled first-place
    share would rank greedy above expert. Pairs are compared in the pair table; the
    per-agent table holds the rating alone, and every column is explained under it."""
    argv = ["--agents", "random,greedy,expert", "--pairs", "ladder", "--matches", "40"]
    assert main([*argv, "--no-progress"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("| agent | matches"))
    assert header == "| agent | matches | OpenSkill μ ± σ |"
    assert "first" not in header
    assert "compared: two players, pairs of agents on the same deals" in out
    for words in ("win rate: matches won against that opponent", "OpenSkill μ ± σ: OpenSkill"):
        assert words in out


def test_against_leaves_the_bots_seats_out_of_the_per_agent_table(capsys):
    argv = ["--agents", "expert,greedy", "--against", "random", "--players", "3"]
    assert main([*argv, "--matches", "12", "--no-progress"]) == 0
    out = capsys.readouterr().out
    rows = [line.split("|")[1].strip() for line in out.splitlines() if line.startswith("| ")]
    assert "random" not in rows[1:] and {"expert", "greedy"} <= set(rows)
    assert "OpenSkill" not in out  # the share against the same table is the measure
    assert "first: share of its seats that finished the match first" in out


@pytest.mark.parametrize(
    ("players", "against", "fields"),
    [
        (2, None, {"agent", "matches", "openskill_mu"}),
        (2, "random", {"agent", "matches", "mean_reward", "points_per_round"}),
        (3, "random", {"agent", "matches", "first_rate", "mean_reward"}),
        (4, None, {"agent", "seats", "matches", "first_rate", "mean_reward"}),
    ],
)
def test_the_report_says_what_it_compares(players, against, fields):
    names = ["expert", "greedy"] if against else ["expert", "greedy", "random"]
    matches = players * 2
    report = evaluate(names, "classic", players, matches, 0, progress=False, against=against)
    assert fields <= set(report["comparable"])
    if players == 2 and against is None:
        assert not {"first_rate", "mean_reward"} & set(report["comparable"])
    if against:
        assert not any(f.startswith("openskill") for f in report["comparable"])
    for field in report["comparable"]:
        assert report["columns"][field]  # each explained


def test_without_the_eval_extra_the_plain_table_says_what_to_install(tmp_path):
    # A base install (scripts/train.sh's train extra has no openskill): the command names
    # the extra and this interpreter's pip before anything runs, and that pip runs.
    blocked = tmp_path / "openskill"
    blocked.mkdir()
    (blocked / "__init__.py").write_text("raise ImportError('not installed here')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    argv = ["--agents", "expert,random", "--matches", "2", "--no-progress"]
    done = subprocess.run(
        [sys.executable, "-m", "agents.evaluate", *argv],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "openskill (the OpenSkill ratings)" in done.stderr
    hint = re.search(r"extra: (.+?) -m pip install -e '\.\[eval\]'", done.stderr)
    assert hint, done.stderr
    pip = subprocess.run(["bash", "-c", f"{hint.group(1)} -m pip --version"], cwd=ROOT, env=env)
    assert pip.returncode == 0
