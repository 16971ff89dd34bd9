"""One answer for every agent name and player count (sto_odno_env/bots/names.py,
bots/counts.py): a count the rule set does not allow is refused by every loader naming
the counts it allows, a policy for other rules names the one that plays them, and a
policy name (``ppo-classic``) means the same file in ``agents.load`` and in each
trainer's option (``warm_start``, ``--warm-start``, ``--policy``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import agents
from sto_odno_env.bots import catalog, names
from sto_odno_env.bots.counts import PlayerCountError
from tests.helpers import needs

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("name", "rules", "players", "allowed"),
    [
        ("expert", "classic", 7, "2–6 players, not 7"),
        ("expert", "nines", 6, "2–4 players, not 6"),
        ("random", "classic", 1, "2–6 players, not 1"),
        ("search", "nines", 5, "2–4 players, not 5"),
        ("rollout:samples=2", "classic", 0, "2–6 players, not 0"),
    ],
)
def test_a_bot_at_a_count_the_rules_do_not_allow_is_refused_naming_the_counts(
    name, rules, players, allowed
):
    with pytest.raises(agents.AgentError, match=allowed):
        agents.load(name, rules, players)


@pytest.mark.parametrize(("rules", "players"), [("classic", 7), ("nines", 6), ("yard", 1)])
def test_recommended_refuses_a_count_the_rules_do_not_allow(rules, players):
    with pytest.raises(PlayerCountError, match=f"not {players}; allowed: 2..[46]"):
        agents.recommended(rules, players)
    assert agents.recommended("nines", 4) == "ppo-nines"  # an allowed count still answers


@needs("torch")
def test_a_policy_for_other_rules_names_the_policy_that_plays_them():
    with pytest.raises(agents.AgentError, match=r"plays classic, not yard; .* is ppo-yard"):
        agents.load("ppo-classic", "yard", 4)
    with pytest.raises(agents.AgentError, match=r"plays yard, not nines; .* is ppo-nines"):
        agents.load("ppo-yard", "nines", 3)
    with pytest.raises(agents.AgentError, match="2–6 players, not 1") as error:
        agents.load("ppo-classic", "classic", 1)
    assert "1 players" not in str(error.value)


def test_the_names_come_from_one_list():
    listed = names.agent_names()
    assert listed[: len(agents.BOTS)] == list(agents.BOTS)
    assert {"ppo-classic", "ppo-classic-first", "ppo-yard"} <= set(listed)
    assert len(listed) == len(set(listed))  # ppo-yard, an alias and a file, once
    for name in listed:
        assert name in names.names_help()
    with pytest.raises(agents.AgentError, match=r"allowed: random, greedy.*ppo-classic"):
        agents.load("nosuch")


@pytest.mark.parametrize("module", ["agents.evaluate", "sto_odno_env.play"])
def test_the_help_of_the_commands_lists_the_resolvers_names(module):
    shown = subprocess.run(
        [sys.executable, "-m", module, "--help"], capture_output=True, text=True, cwd=ROOT
    )
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    for name in names.policy_names():
        assert name in text, (module, name)


def test_the_web_table_offers_the_resolvers_names():
    pytest.importorskip("starlette")
    from sto_odno_env.apps.web.games import offered_agents

    assert [agent.name for agent in offered_agents()] == names.agent_names()


# --- each trainer's option, with a rule set's name --------------------------------------


def test_the_training_config_takes_a_policy_name_as_warm_start():
    from train.config import load_config

    config = load_config(items=["warm_start=ppo-classic", "players=4"])
    assert config.warm_start == "ppo-classic"


@needs("torch")
def test_ppo_warm_start_loads_the_file_the_name_loads(tmp_path):
    import torch

    from sto_odno_env.bots.checkpoint import network_sizes
    from sto_odno_env.game.rules import load_rules
    from train.config import load_config
    from train.ppo_parts.imitation import teacher_of
    from train.ppo_parts.masked import make_networks

    rules = load_rules("classic")
    config = load_config(items=["warm_start=ppo-classic", "players=4"])
    inputs, actions = network_sizes(rules)
    actor, _ = make_networks(inputs, list(config.hidden), actions)
    _, imitates = teacher_of(config, rules, 4, actor)
    assert not imitates
    expected = agents.load("ppo-classic", rules, 4).network.state_dict()
    for key, weight in actor.state_dict().items():
        assert torch.equal(weight, expected[key]), key
    assert agents.recommended(rules, 4) == "ppo-classic-first"


@needs("torch")
def test_exploit_warm_start_takes_a_policy_name():
    from train.exploit import resolve_start

    start = resolve_start("ppo-classic", None, 4)
    assert start.kind == "policy" and start.name == "ppo-classic" and start.widths == [128, 128]


@needs("torch")
def test_distill_policy_takes_a_policy_name(tmp_path):
    from train import distill

    out = tmp_path / "out"
    argv = ["--policy", "ppo-classic", "--teacher", "expert", "--players", "4",
            "--decisions", "16", "--batch", "8", "--epochs", "1", "--out", str(out)]  # fmt: skip
    assert distill.main(argv) == 0
    assert json.loads((out / "summary.json").read_text())["policy"] == "ppo-classic"
    # Its file at 2 players is another network: one student, so refused by name.
    with pytest.raises(distill.DistillError, match="2: ppo-classic-2p-long; 4: ppo-classic-first"):
        distill.student_file("ppo-classic", [2, 4])


def test_the_catalog_and_the_resolver_agree_on_every_preset_count():
    for alias in catalog.aliases():
        for players in catalog.served_counts(alias):
            file = names.shipped_file(alias, players)
            assert names.policy_path(alias, players) == catalog.policy_cards()[file].path
