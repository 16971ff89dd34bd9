"""``scripts/strength.py``: the standing strength table of the shipped policies.

The tables in README.md and docs/training.md are the rendering of
docs/strength/strength.json; a measured row is what its own ``agents.evaluate`` command
prints; bad settings are refused before anything is played; Ctrl-C and SIGTERM keep the
file whole.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers import assert_stopped, lines_starting, needs, stop_when_ready

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "lab" / "tools" / "strength.py"
MEASURES = needs("torch", "openskill", "matplotlib")


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("strength_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


strength = _load()


def _row(**changes) -> dict:
    row = {
        "policy": "ppo-classic",
        "rules": "classic",
        "players": 4,
        "against": "expert",
        "matches": 10000,
        "seed": 0,
        "rate": 0.3,
        "ci_low": 0.291,
        "ci_high": 0.309,
        "par": 0.25,
        "mean_reward": -0.043,
        "reward_ci_low": -0.058,
        "reward_ci_high": -0.028,
        "seconds": 12.5,
        "command": "python -m agents.evaluate --agents ppo-classic --against expert "
        "--players 4 --matches 10000 --seed 0",
    }
    row.update(changes)
    return row


def test_render_check_passes_on_the_repository() -> None:
    # The tables in README.md and docs/training.md are the JSON's: they cannot drift.
    assert strength.main(["render", "--check"]) == 0, "run: python lab/tools/strength.py render"


def test_render_writes_the_readme_block_and_the_whole_table_and_check_sees_a_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "lab" / "strength" / "strength.json"
    readme, page = tmp_path / "README.md", tmp_path / "lab" / "strength" / "README.md"
    rows = [
        _row(policy="ppo-classic-first", players=4, rate=0.353),
        _row(policy="ppo-classic-mix", players=4, rate=0.3),
        _row(policy="ppo-classic-first", players=4, against="random", rate=0.999),
    ]
    strength.write_table(table, rows)
    block = f"{strength.BEGIN}\nold\n{strength.END}"
    readme.write_text(f"# title\n\nbefore\n\n{block}\n\nafter\n", encoding="utf-8")
    paths = ["--json", str(table), "--readme", str(readme), "--table", str(page)]

    assert strength.main(["render", "--check", *paths]) == 1
    message = capsys.readouterr().err
    assert str(readme) in message and str(page) in message and "render" in message
    assert "old" in readme.read_text(encoding="utf-8") and not page.exists()  # wrote nothing

    assert strength.main(["render", *paths]) == 0
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("# title\n\nbefore\n\n") and text.endswith("\n\nafter\n")
    assert "old" not in text
    # One row per rule set and run of counts one file serves, named by its alias.
    line = next(line for line in text.splitlines() if line.startswith("| classic | 3–5 |"))
    cells = [cell.strip() for cell in line.strip("|").split("|")]
    assert cells[2:4] == ["`ppo-classic`", "`ppo-classic-first`"]
    assert "4p 0.353 / 0.250" in cells[4] and "3p not measured" in cells[4]
    # The whole table: grouped by rules and count, the recommended policy first.
    lines = page.read_text(encoding="utf-8").splitlines()
    group = lines[lines.index("### 4 players (par 0.250)") + 4 :]
    firsts = [[cell.strip() for cell in row.strip("|").split("|")][:3] for row in group[:3]]
    assert firsts == [
        ["`ppo-classic-first` **recommended**", "three experts", "0.353"],
        ["`ppo-classic-first` **recommended**", "three randoms", "0.999"],
        ["`ppo-classic-mix` (archived)", "three experts", "0.300"],
    ]
    assert f"`{_row()['command']}`" in group[2]
    assert strength.main(["render", "--check", *paths]) == 0

    strength.write_table(table, [*rows[:2], _row(rate=0.301)])  # the JSON moved, not the docs
    assert strength.main(["render", "--check", *paths]) == 1


def test_the_table_names_the_bots_by_count() -> None:
    assert strength.against_words("expert", 2) == "expert"
    assert strength.against_words("search", 3) == "two searches"
    assert strength.against_words("expert", 6) == "five experts"


def test_every_command_of_the_table_is_one_pasteable_line() -> None:
    for row in strength.read_table(strength.STRENGTH_JSON):
        command = row["command"]
        assert "\n" not in command and "(" not in command, command
        assert command.startswith(("python -m agents.evaluate ", "for S in ")), command
        for path in (w for w in command.split() if w.endswith(".pt") or ".pt," in w):
            assert (REPO / path.split(",")[0].split("=")[-1]).is_file(), command


def _evaluate_command(command: str, out: Path) -> dict:
    """Run ``command`` (an ``agents.evaluate`` command line) as written; its results.json."""
    from agents import evaluate

    argv = shlex.split(command)
    assert argv[:3] == ["python", "-m", "agents.evaluate"], command
    assert evaluate.main([*argv[3:], "--no-progress", "--out", str(out)]) == 0
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


@MEASURES
@pytest.mark.parametrize(
    ("policy", "players", "asked", "played"),
    [("ppo-classic-2p-long", 2, 20, 20), ("ppo-classic-first", 3, 20, 18)],
)
def test_a_measured_row_is_what_its_command_prints(
    tmp_path: Path, policy: str, players: int, asked: int, played: int
) -> None:
    table = tmp_path / "strength.json"
    other = _row(policy="ppo-other")
    strength.write_table(table, [other])
    argv = ["measure", "--policies", policy, "--players", str(players), "--against", "expert"]
    assert strength.main([*argv, "--matches", str(asked), "--json", str(table)]) == 0

    rows = strength.read_table(table)
    assert other in rows  # merged: the rows not measured stay
    (row,) = [r for r in rows if r["policy"] == policy]
    assert row["command"] == (
        f"python -m agents.evaluate --agents {policy} --against expert --players {players} "
        f"--matches {played} --seed 0"
    )
    assert (row["rules"], row["players"], row["against"], row["matches"]) == (
        "classic",
        players,
        "expert",
        played,
    )
    assert row["par"] == pytest.approx(1 / players) and row["seconds"] > 0

    report = _evaluate_command(row["command"], tmp_path / "eval")
    mine = next(r for r in report["agents"] if r["agent"] == policy)
    if players == 2:
        duel = report["head_to_head"][0]
        expected = (duel["win_rate"], duel["ci_low"], duel["ci_high"])
    else:
        expected = (mine["first_rate"], mine["first_ci_low"], mine["first_ci_high"])
    assert (row["rate"], row["ci_low"], row["ci_high"]) == expected
    assert (row["mean_reward"], row["reward_ci_low"], row["reward_ci_high"]) == (
        mine["mean_reward"],
        mine["reward_ci_low"],
        mine["reward_ci_high"],
    )
    assert row["matches"] == report["matches"]


@MEASURES
def test_measuring_a_row_again_replaces_it(tmp_path: Path) -> None:
    table = tmp_path / "strength.json"
    strength.write_table(table, [_row(policy="ppo-classic-2p-long", players=2, seed=9, rate=0.0)])
    argv = ["measure", "--policies", "ppo-classic-2p-long", "--against", "random", "--matches", "4"]
    assert strength.main([*argv, "--json", str(table), "--seed", "1"]) == 0
    rows = strength.read_table(table)
    assert [(r["against"], r["seed"]) for r in rows] == [("expert", 9), ("random", 1)]
    assert strength.main([*argv, "--json", str(table), "--seed", "2"]) == 0
    rows = strength.read_table(table)
    assert [(r["against"], r["seed"]) for r in rows] == [("expert", 9), ("random", 2)]
    assert not [p for p in tmp_path.iterdir() if p.name != "strength.json"]  # no temp files


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--policies", "ppo-nowhere"], ["unknown policy 'ppo-nowhere'", "ppo-classic-2p-long"]),
        (
            ["--policies", "ppo-classic-2p-long", "--players", "4"],
            ["'ppo-classic-2p-long' does not claim 4 players", "allowed for it: 2"],
        ),
        (["--policies", "ppo-classic-first", "--players", "2,x"], ["'x' is not a player count"]),
        (["--against", "expert,grandmaster"], ["unknown bot 'grandmaster'", "expert", "random"]),
        (["--policies", "ppo-classic-first", "--players", "6", "--matches", "5"], ["at least 6"]),
    ],
)
def test_bad_settings_are_refused_before_anything_is_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], words: list[str]
) -> None:
    table = tmp_path / "strength.json"
    with pytest.raises(SystemExit) as stopped:
        strength.main(["measure", *argv, "--json", str(table)])
    assert stopped.value.code == 2
    message = capsys.readouterr().err
    assert message.startswith("python lab/tools/strength.py measure: error: ")
    assert message.count("\n") == 1
    for word in words:
        assert word in message, message
    assert not table.exists()


@pytest.mark.slow
@MEASURES
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_keeps_the_file_whole_without_a_traceback(tmp_path: Path, stop: int) -> None:
    table = tmp_path / "strength.json"
    strength.write_table(table, [_row()])
    before = table.read_bytes()
    argv = [sys.executable, str(SCRIPT), "measure", "--policies", "ppo-classic-2p-long"]
    argv += ["--against", "expert", "--matches", "200000", "--json", str(table)]
    # the row's start line, then the matches under way (the agents are loaded)
    playing = lines_starting("[1/1] ppo-classic-2p-long", "playing 200000 matches")
    run = stop_when_ready(argv, stop, playing, cwd=tmp_path, settle=1.0)
    assert_stopped(run)
    assert "0 of 1 rows measured" in run.stderr, run.stderr
    assert table.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["strength.json"]


def test_every_shipped_policy_has_a_row_at_every_count_it_claims() -> None:
    # The standing table covers what ships: a new policy, or a count added to one, needs
    # its vs-expert rows (python lab/tools/strength.py measure --policies NAME).
    from sto_odno_env.bots.registry import shipped_policies

    pytest.importorskip("torch", reason="reading a policy file needs torch (the train extra)")
    rows = strength.read_table(strength.STRENGTH_JSON)
    have = {(row["policy"], row["players"]) for row in rows if row["against"] == "expert"}
    missing = []
    for name, path in shipped_policies().items():
        rules, counts = strength.claims(name, path)
        missing += [f"{name} at {count} players" for count in counts if (name, count) not in have]
        assert all(row["rules"] == rules for row in rows if row["policy"] == name), name
    assert not missing, (
        f"no vs-expert row for {', '.join(missing)} in {strength.STRENGTH_JSON}: "
        "python lab/tools/strength.py measure --policies NAME --players P --against expert"
    )


def test_the_script_runs_from_anywhere(tmp_path: Path) -> None:
    # `python lab/tools/strength.py` from another directory still finds the repository's files.
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "render", "--check"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
