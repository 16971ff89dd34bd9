"""The exact tools (agents/exact, docs/evaluation.md "Exact values") against OpenSpiel's own
computation on the same game: micro's tree exported as Gambit EFG and read by
``pyspiel.load_efg_game``, its NashConv and per-seat best-response gains from
``open_spiel.python.algorithms.exploitability``; OpenSpiel's walk of ``python_sto_odno``
itself (slow tier); the command's refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.exact import (
    TreeTooLarge,
    build_tree,
    evaluate,
    exploitability,
    solve,
    table_profile,
    to_efg,
    uniform_profile,
)
from agents.exact.values import best_response, node_values, profile_values, seat_profile
from sto_odno_env.bots.registry import load
from sto_odno_env.game.cards import action_name

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tree():
    return build_tree("micro")


@pytest.fixture(scope="module")
def efg_game(tree):
    return pyspiel.load_efg_game(to_efg(tree))


def openspiel_policy(game, tree, profile: np.ndarray) -> os_policy.TabularPolicy:
    """Our (I, A) profile as OpenSpiel's tabular policy of the EFG game: its information
    state strings end in the set's name ``i<k>``, its actions carry our action names."""
    tabular = os_policy.TabularPolicy(game)
    ours = {action_name(a, tree.rules.deck_spec): a for a in range(profile.shape[1])}
    for key, row in tabular.state_lookup.items():
        infoset = int(key.rsplit("-i", 1)[1])
        state = tabular.states[row]
        tabular.action_probability_array[row] = 0.0
        for action in np.flatnonzero(tabular.legal_actions_mask[row]):
            tabular.action_probability_array[row, action] = profile[
                infoset, ours[state.action_to_string(action)]
            ]
    return tabular


def test_the_tree_is_micros_whole_game(tree):
    """Every deal once, equally likely; zero-sum terminals; every decision a real one."""
    assert tree.deals == 2 * 720 == tree.num_children[0]
    terminal = (tree.num_children == 0) & (np.arange(tree.size) > 0)
    assert np.allclose(tree.utility[terminal].sum(axis=1), 0.0)
    assert set(np.unique(tree.utility[terminal])) <= {-1.0, 0.0, 1.0}
    decisions = tree.player >= 0
    assert (tree.num_children[decisions] >= 2).all()
    assert (tree.infoset[decisions] >= 0).all() and (tree.infoset[~decisions] == -1).all()
    # perfect recall: the sets of a seat are the seat's own
    assert (tree.infoset_player[tree.infoset[decisions]] == tree.player[decisions]).all()


@pytest.mark.parametrize("agents", [["random"], ["expert"], ["greedy", "random"], ["cfr-micro"]])
def test_values_agree_with_openspiel_on_the_exported_game(tree, efg_game, agents):
    """NashConv and each seat's gain to 1e-6 (OpenSpiel's C++ best response)."""
    profile = table_profile(tree, [load(a, "micro", 2) for a in agents])
    ours = exploitability(tree, profile)
    theirs = os_exploitability.nash_conv(
        efg_game,
        openspiel_policy(efg_game, tree, profile),
        return_only_nash_conv=False,
        use_cpp_br=True,
    )
    assert ours.nash_conv == pytest.approx(theirs.nash_conv, abs=1e-6)
    assert np.allclose(ours.gains, theirs.player_improvements, atol=1e-6)


def test_python_best_response_agrees_on_a_mixed_profile(tree, efg_game):
    """A profile mixed at every set (CFR after a few iterations), OpenSpiel's Python path."""
    profile = solve(tree, 5, keys="infoset").profile(tree)
    ours = exploitability(tree, profile).nash_conv
    theirs = os_exploitability.nash_conv(efg_game, openspiel_policy(efg_game, tree, profile))
    assert ours == pytest.approx(theirs, abs=1e-6)


def test_a_best_response_is_a_best_response(tree):
    """Against expert, the response's value is its own value as a profile, beats expert's
    own play, and no single-set deviation from it gains."""
    expert = table_profile(tree, [load("expert", "micro", 2)])
    value, response = best_response(tree, expert, seat=0)
    played = seat_profile(tree, [response, expert])
    weights_value = profile_values(tree, played)[0]
    assert value == pytest.approx(weights_value, abs=1e-12)
    assert value > profile_values(tree, expert)[0]
    rng = np.random.default_rng(0)
    own = np.flatnonzero(tree.infoset_player == 0)
    for infoset in rng.choice(own, 20, replace=False):
        legal = np.flatnonzero(tree.masks[tree.infoset_observation[infoset]])
        for action in legal:
            deviation = response.copy()
            deviation[infoset] = 0.0
            deviation[infoset, action] = 1.0
            profile = seat_profile(tree, [deviation, expert])
            assert profile_values(tree, profile)[0] <= value + 1e-12


def test_cfr_converges_and_cfr_micro_is_near_nash(tree):
    result = solve(tree, 200, keys="infoset", measure_every=100)
    assert [row[0] for row in result.curve] == [100, 200]
    assert result.curve[1][2] < result.curve[0][2] < 1e-3
    report = evaluate(["cfr-micro"], "micro", tree=tree)
    assert report.nash_conv <= 0.01
    assert np.allclose(report.values, 0.0, atol=1e-9)  # the seats are symmetric


def test_node_values_of_the_uniform_profile_sum_to_zero(tree):
    values = node_values(tree, np.ones(tree.size))  # unweighted sums: still zero-sum
    assert np.allclose(values.sum(axis=1), 0.0)
    uniform = exploitability(tree, uniform_profile(tree))
    assert uniform.exploitability == pytest.approx(uniform.nash_conv / 2)


def test_a_tree_too_large_is_refused_naming_its_size():
    with pytest.raises(TreeTooLarge, match=r"the deal alone has .* outcomes"):
        build_tree("classic", 2)
    with pytest.raises(TreeTooLarge, match=r"more than 2,441 histories"):
        build_tree("micro", 2, max_nodes=2441)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agents.exact", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["size", "--rules", "classic"], "the deal alone has"),
        (["evaluate", "expert", "--rules", "micro", "--players", "3"], "allowed: 2..2"),
        (["evaluate", "nobody"], "nobody"),
        (["size", "--rules", "no-such-rules"], "no-such-rules"),
        (
            ["size", "--rules", "micro", "--max-nodes", "5000"],
            "more than 5,000 histories",
        ),
    ],
)
def test_the_command_refuses_bad_input_in_one_line(args, message):
    done = run(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr


def test_the_command_evaluates_and_solves(tmp_path):
    done = run("evaluate", "expert", "--json", str(tmp_path / "expert.json"))
    assert done.returncode == 0, done.stderr
    expected = evaluate(["expert"], "micro")  # the command prints the API's figures
    assert f"NashConv {expected.nash_conv:.6f}" in done.stdout
    written = json.loads((tmp_path / "expert.json").read_text())
    assert written["gains"] == pytest.approx(list(expected.gains))
    done = run(
        "solve", "--iterations", "20", "--measure-every", "10",
        "--out", str(tmp_path / "cfr.npz"), "--curve", str(tmp_path / "curve.csv"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "curve.csv").read_text().count("\n") == 3
    solved = load(str(tmp_path / "cfr.npz"), "micro", 2)
    assert evaluate([solved], "micro").nash_conv < 0.01


@pytest.mark.slow
def test_openspiel_walks_python_sto_odno_micro_to_the_same_nash_conv():
    """OpenSpiel's own Python NashConv over the registered game (2-3 min on 2 cores)."""
    import sto_odno_env.interop.openspiel  # noqa: F401  (registers python_sto_odno)

    game = pyspiel.load_game("python_sto_odno", {"rules": "micro", "players": 2})
    theirs = os_exploitability.nash_conv(game, os_policy.UniformRandomPolicy(game))
    assert theirs == pytest.approx(evaluate(["random"], "micro").nash_conv, abs=1e-9)
