"""The OpenSpiel scripts run: scripts/openspiel_bench.py prints its table, its ratios and its
profile; lab/openspiel/mcts_table.py plays duplicate deals at round level, resumes from its
file and prints its table. Only that they run and what they print: no timings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sto_odno_env.interop.openspiel")

REPO = Path(__file__).resolve().parents[1]


def run(*args: str) -> str:
    """Run a script of the repository with this interpreter; its standard output."""
    done = subprocess.run(
        [sys.executable, *args], cwd=REPO, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_openspiel_bench_prints_every_game_the_ratios_and_the_profile():
    out = run(
        "scripts/openspiel_bench.py", "--seconds", "0.05", "--repeats", "1", "--profile", "300"
    )
    for game in ("python_sto_odno(classic, 2p)", "python_kuhn_poker", "python_liars_poker"):
        assert f"| {game} |" in out
    assert "| crazy_eights |" in out
    assert "python_sto_odno(classic, 2p) / python_kuhn_poker:" in out
    assert "engine.step" in out and "State.copy" in out


def test_mcts_table_plays_round_level_deals_resumes_and_tables(tmp_path):
    out = tmp_path / "games.jsonl"
    command = ["lab/openspiel/mcts_table.py", "--bot", "random", "--against", "expert"]
    run(*command, "--deals", "2", "--out", str(out))
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(row["deal"], row["bot_seat"]) for row in rows] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert {row["cell"] for row in rows} == {"random/0/expert/classic/rounds=1"}
    # rounds=1: a game is one round, its utility the round reward (never above 1).
    assert all(row["reward"] <= 1 and row["win"] in (0.0, 0.5, 1.0) for row in rows)
    run(*command, "--deals", "3", "--out", str(out))  # resumes: only deal 2 is new
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["deal"] for row in rows] == [0, 0, 1, 1, 2, 2]
    table = run("lab/openspiel/mcts_table.py", "--table", str(out))
    assert "| uniform random | expert | 3 (6) |" in table


def test_mcts_table_names_the_engine_rollouts_of_its_cells(tmp_path):
    """--rollouts/--n-rollouts value the search's leaves with EngineRollouts; the cell and
    the table say which, and a second file's games of the same deal count once."""
    out = tmp_path / "games.jsonl"
    command = ["lab/openspiel/mcts_table.py", "--bot", "ismcts", "--simulations", "2"]
    leaves = ["--rollouts", "greedy", "--n-rollouts", "2", "--deals", "1"]
    run(*command, "--against", "greedy", *leaves, "--out", str(out))
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {row["cell"] for row in rows} == {"ismcts/2/greedy/classic/rounds=1/rollouts=greedyx2"}
    table = run("lab/openspiel/mcts_table.py", "--table", str(out), str(out))
    assert "| ISMCTS (2; greedy rollouts ×2) | greedy | 1 (2) |" in table
