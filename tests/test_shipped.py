"""Every shipped policy loads for each rule set and player count its file claims, plays
legal moves there in the AEC and vector envs, and is refused elsewhere."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from agents import load  # noqa: E402
from sto_odno_env.bots.registry import SHIPPED, AgentError  # noqa: E402
from sto_odno_env.bots.tabular import read_header  # noqa: E402
from sto_odno_env.envs.gym_env import StoOdnoVectorEnv  # noqa: E402
from sto_odno_env.game.rules import Rules, load_rules  # noqa: E402
from tests.helpers import play_a_match_in_the_aec_env  # noqa: E402

ALL_COUNTS = range(2, 7)


def claims(name: str) -> tuple[Rules, list[int]]:
    """The rule set and the player counts a shipped policy file says it was trained (a
    network, .pt) or solved (a table, .npz) for."""
    if SHIPPED[name].suffix == ".npz":
        record = read_header(SHIPPED[name])
    else:
        record = torch.load(SHIPPED[name], weights_only=True)
    return Rules.from_dict(record["rules"]), list(record["players"])


CASES = [(name, players) for name in sorted(SHIPPED) for players in claims(name)[1]]


def test_every_shipped_policy_claims_rules_and_counts():
    assert SHIPPED
    for name in SHIPPED:
        rules, counts = claims(name)
        assert counts and set(counts) <= set(ALL_COUNTS), name
        for players in counts:
            rules.check_players(players)


@pytest.mark.parametrize(("name", "players"), CASES)
def test_a_shipped_policy_plays_legal_moves_at_each_count_it_claims(name, players):
    rules, _ = claims(name)
    agent = load(name, rules, players)
    play_a_match_in_the_aec_env(agent, rules, players, seed=players, max_steps=600)
    vector = StoOdnoVectorEnv(num_envs=16, rules=rules, players=players, opponents=agent)
    observations, infos = vector.reset(seed=players)
    for _ in range(20):
        actions = agent.act(observations, infos["action_mask"])
        observations, _, _, _, infos = vector.step(actions)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_a_shipped_policy_is_refused_at_a_count_it_does_not_claim(name):
    rules, counts = claims(name)
    low, high = rules.players
    others = [p for p in range(low, high + 1) if p not in counts]
    if not others:
        pytest.skip(f"{name} claims every count its rules allow")
    with pytest.raises(AgentError, match=r"(trained|solved) for"):
        load(name, rules, others[0])


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_a_shipped_policy_is_refused_for_other_rules(name):
    rules, counts = claims(name)
    other = "yard" if rules.name != "yard" else "classic"
    other_rules = load_rules(other)
    if other_rules.to_dict() == rules.to_dict():
        pytest.skip("the other preset is the same rule set")
    with pytest.raises(
        AgentError, match=rf"(trained|solved) for (other )?rules|plays {rules.name}, not {other}"
    ):
        load(name, other_rules, counts[0])
