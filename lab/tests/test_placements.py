"""lab/tools/placements.py: where first places come from. An agent that is the bot takes each
place exactly once per deal (duplicate deals, deterministic bots), the shares add up, the
duel swap hands exactly the two-left decisions to the duel agent, and bad settings are
refused by name."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.arena import play
from agents.evaluate import duplicate_schedule
from sto_odno_env.bots.features import players_in, view_of
from sto_odno_env.bots.registry import load
from sto_odno_env.game.rules import load_rules
from tests.helpers import assert_stopped, lines_starting, stop_name, stop_when_ready

SCRIPT = Path(__file__).resolve().parents[2] / "lab" / "tools" / "placements.py"
sys.path.insert(0, str(SCRIPT.parent))
import placements  # noqa: E402

RULES = load_rules("classic")


def test_the_bot_against_itself_takes_every_place_equally():
    agents = {"me": load("expert", RULES, 4), "bot": load("expert", RULES, 4)}
    results = play(RULES, 4, agents, duplicate_schedule([("me", "bot", "bot", "bot")], 12, 3))
    row = placements.placements(results, "me")
    assert row["matches"] == 48
    assert [row[f"place_{k}"] for k in (1, 2, 3, 4)] == [0.25] * 4
    assert row["final_two"] == 0.5 and row["first_given_final_two"] == 0.5
    assert row["resets"] == pytest.approx(row["bot_resets"])


def test_the_shares_add_up_for_a_stronger_agent():
    agents = {"greedy": load("greedy", RULES, 3), "bot": load("random", RULES, 3, seed=1)}
    results = play(RULES, 3, agents, duplicate_schedule([("greedy", "bot", "bot")], 10, 0))
    row = placements.placements(results, "greedy")
    assert sum(row[f"place_{k}"] for k in (1, 2, 3)) == pytest.approx(1.0)
    assert row["final_two"] == pytest.approx(row["place_1"] + row["place_2"])
    assert row["first_given_final_two"] == pytest.approx(row["place_1"] / row["final_two"])
    assert row["first"] > 0.9  # greedy all but always outlasts two random players
    assert row["first_low"] <= row["first"] <= row["first_high"]


class Marker:
    """Plays the first legal action and remembers how many players were in."""

    def __init__(self):
        self.seen: list[int] = []

    def act(self, observations, masks):
        self.seen += players_in(view_of(np.asarray(observations), RULES)).tolist()
        return np.argmax(np.asarray(masks) > 0, axis=1)


def test_the_duel_swap_hands_over_exactly_when_two_are_left():
    multi, duel = Marker(), Marker()
    swap = placements.DuelSwap(multi, duel, RULES)
    agents = {"swap": swap, "bot": load("expert", RULES, 3)}
    play(RULES, 3, agents, duplicate_schedule([("swap", "bot", "bot")], 6, 0))
    assert duel.seen and set(duel.seen) == {2}
    assert multi.seen and set(multi.seen) == {3}


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--players", "2"], ["players: 2", "allowed: 3 or more"]),
        (["--players", "7"], ["players: 7", "allowed: 2..6"]),
        (["--deals", "0"], ["--deals: 0 is out of range", "allowed: an integer >= 1"]),
        (["--against", "oracle"], ["unknown agent 'oracle'"]),
    ],
)
def test_bad_settings_are_refused_by_name(argv, words):
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--agent", "expert", *argv],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


def test_the_table_prints_a_row_per_agent():
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--agent", "greedy", "--duel", "expert", "--players", "3",
         "--deals", "4"],
        capture_output=True, text=True, timeout=120, check=True, cwd=SCRIPT.parents[2],
    )  # fmt: skip
    lines = result.stdout.splitlines()
    assert lines[0].startswith("| agent | matches | first [95% CI] | place 1 | place 2 | place 3 |")
    assert [line.split(" | ")[0] for line in lines[2:]] == [
        "| greedy",
        "| greedy + expert when two are left",
    ]


@pytest.mark.slow  # a command in a subprocess
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_says_so_in_one_line_and_exits_130(stop):
    command = [sys.executable, str(SCRIPT), "--agent", "greedy", "--deals", "200000"]
    run = stop_when_ready(
        command, stop, lines_starting("playing"), cwd=SCRIPT.parents[2], settle=0.5
    )
    assert_stopped(run)
    message = "no table printed (the deals are measured together)"
    assert run.stderr == f"stopped by {stop_name(stop)}: {message}\n", run.stderr
    assert run.stdout == ""
