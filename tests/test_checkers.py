"""The ecosystem's own checkers on the envs, as third-party clients run them.

Gymnasium's ``check_env`` and PettingZoo's ``api_test``, ``seed_test``,
``parallel_api_test`` / ``parallel_seed_test`` (through PettingZoo's turn-based-to-parallel
converter), ``state_test``, ``render_test`` and ``average_total_reward``, with every
warning an error except the two ``api_test`` always gives for an observation with an
action mask (a ``Dict``, as in PettingZoo's own classic games). ``max_cycles_test`` does not
apply: the turn limit is the rule set's ``max_turns``, not a ``max_cycles`` argument.

This file needs nothing beyond a base install (``pip install -e . pytest hypothesis``,
the newest gymnasium and pettingzoo, no Pillow): ``.ci/run`` runs it in such a venv as
well as in the full one. Without Pillow the envs do not offer ``render_mode="rgb_array"``;
a subprocess with Pillow hidden checks that case in the full venv too.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import (
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)
from pettingzoo.utils import average_total_reward, turn_based_aec_to_parallel

import sto_odno_env  # registers StoOdno-v0 and sto_odno_v0
from sto_odno_env import Rules, sto_odno_v0

REPO = Path(__file__).resolve().parents[1]


def api_test_with_mask(env, num_cycles: int) -> None:
    """api_test, letting through only the two warnings it gives every observation with an
    action mask (every other warning is an error in this file)."""
    with warnings.catch_warnings():
        for message in (
            "Observation space for each agent probably",
            "Observation is not a NumPy array",
        ):
            warnings.filterwarnings("ignore", message=message)
        api_test(env, num_cycles=num_cycles)


RULE_SETS = {
    "classic": "classic",
    "encyclopedia": "encyclopedia",
    "call-52": Rules.preset("classic").replace(deck=52, last_card_call=True, stacking=True),
}
pytestmark = pytest.mark.filterwarnings("error")


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("rules", list(RULE_SETS))
def test_gymnasium_check_env(rules, players):
    """check_env with illegal actions penalised (it sends unmasked actions), through
    gymnasium.make so that it also renders every advertised mode; no warning."""
    env = gymnasium.make(
        "StoOdno-v0", rules=RULE_SETS[rules], players=players, illegal_action="penalize"
    )
    check_env(env.unwrapped)


@pytest.mark.parametrize(("rules", "players"), [("classic", 2), ("encyclopedia", 5)])
def test_pettingzoo_api_test_on_the_default_env(rules, players):
    api_test_with_mask(sto_odno_v0.env(rules=RULE_SETS[rules], players=players), 200)


def test_pettingzoo_api_test_with_eliminated_players_staying():
    api_test_with_mask(sto_odno_v0.env(players=4, eliminated="stay"), 300)


@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoo_seed_test(players):
    seed_test(lambda: sto_odno_v0.env(players=players), num_cycles=200)


@pytest.mark.parametrize("eliminated", ["leave", "stay"])
@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoo_parallel_tests(players, eliminated):
    """The turn-based-to-parallel converter sends unmasked actions for every agent; the
    default (penalize) ends the match on an illegal one instead of raising."""

    def parallel_env():
        return turn_based_aec_to_parallel(sto_odno_v0.env(players=players, eliminated=eliminated))

    parallel_api_test(parallel_env(), num_cycles=200)
    parallel_seed_test(parallel_env, num_cycles=200)


@pytest.mark.parametrize(("rules", "players"), [("classic", 3), ("call-52", 2)])
def test_pettingzoo_state_test(rules, players):
    env = sto_odno_v0.env(rules=RULE_SETS[rules], players=players)
    parallel = turn_based_aec_to_parallel(sto_odno_v0.env(rules=RULE_SETS[rules], players=players))
    state_test(env, parallel, num_cycles=50)
    assert parallel.state_space == env.state_space
    assert parallel.state().shape == env.state_space.shape


def test_pettingzoo_render_test(capsys):
    def env_fn(render_mode=None):
        return sto_odno_v0.env(players=3, render_mode=render_mode)

    render_test(env_fn)
    assert "top card:" in capsys.readouterr().out  # "human" printed the table


def test_pettingzoo_average_total_reward():
    """average_total_reward plays unmasked random actions (it observes nothing): each match
    ends at the first illegal one with −1 for the offender and 0 for the others."""
    assert average_total_reward(sto_odno_v0.env(players=3), max_episodes=4) == pytest.approx(-1.0)


def run_python(code: str, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *flags, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_without_pillow_rgb_array_is_not_offered_and_the_checkers_pass():
    """Pillow hidden (as on a base install): no env advertises "rgb_array", asking for it
    names the missing package, and check_env and render_test pass without a warning."""
    code = """
import sys
sys.modules["PIL"] = None  # import PIL now fails, as without Pillow
import warnings
warnings.simplefilter("error")
import gymnasium
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import render_test
import sto_odno_env
from sto_odno_env import sto_odno_v0
from sto_odno_env.envs.gym_env import StoOdnoEnv

for metadata in (sto_odno_v0.raw_env.metadata, StoOdnoEnv.metadata):
    assert "rgb_array" not in metadata["render_modes"], metadata
for make in (lambda: sto_odno_v0.env(render_mode="rgb_array"),
             lambda: StoOdnoEnv(render_mode="rgb_array")):
    try:
        make()
    except ValueError as error:
        assert "need Pillow" in str(error) and "sto-odno-env[picture]" in str(error), error
    else:
        raise AssertionError("rgb_array accepted without Pillow")
check_env(gymnasium.make("StoOdno-v0", players=3, illegal_action="penalize").unwrapped)
render_test(lambda render_mode=None: sto_odno_v0.env(players=2, render_mode=render_mode))
print("ok")
"""
    result = run_python(code)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("ok")


def test_rgb_array_is_offered_where_pillow_is_installed():
    from sto_odno_env.views import picture

    offered = "rgb_array" in sto_odno_v0.raw_env.metadata["render_modes"]
    assert offered == picture.rgb_available()
    if offered:
        frame = sto_odno_v0.env(players=2, render_mode="rgb_array")
        frame.reset(seed=0)
        assert frame.render().ndim == 3


def test_reimporting_registers_once_without_a_warning():
    """A reload of the package (a notebook re-running its imports) registers nothing twice:
    no "Overriding environment" warning, with warnings as errors."""
    code = """
import importlib
import gymnasium, pettingzoo
import sto_odno_env
importlib.reload(sto_odno_env)
importlib.reload(sto_odno_env)
assert "StoOdno-v0" in gymnasium.registry
assert pettingzoo.spec("aec", "sto_odno_v0").entry_point == "sto_odno_env.envs.aec:env"
env = pettingzoo.make("aec", "sto_odno_v0", players=3)
env.reset(seed=0)
print("ok")
"""
    result = run_python(code, "-W", "error")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "ok"
    assert "Overriding" not in result.stderr
    # and in this process, as a second import path would
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        import importlib

        importlib.reload(sto_odno_env)
