"""The ``search`` agent (sto_odno_env/bots/search.py): belief-weighted deals that depend only on
what
the seat sees, policy-guided rollouts, legal play in the AEC and vector envs, and its
registry arguments."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

import agents
from sto_odno_env import sto_odno_v0
from sto_odno_env.bots.registry import AgentError
from sto_odno_env.bots.search import SearchAgent
from sto_odno_env.envs.gym_env import StoOdnoVectorEnv
from sto_odno_env.game import engine
from sto_odno_env.game.rules import load_rules
from sto_odno_env.views.determinise import from_observations
from sto_odno_env.views.observation import observe


def mid_round_observations(rules, players, games=24, seed=3, steps=12):
    """Observations of the seat to act after a few expert moves: cards on the pile, so the
    last play is there to weigh."""
    state = engine.init(rules, players, games, seed=seed)
    expert = agents.load("expert", rules, players)
    for _ in range(steps):
        live = np.flatnonzero(~state.done)
        obs = observe(state, state.current_player[live].astype(np.intp), games=live)
        actions = np.zeros(state.batch, dtype=np.int64)
        actions[live] = expert.act(
            obs, engine.unpack_actions(state.legal_bits[live], rules.num_actions)
        )
        engine.step(state, actions, games=live)
    live = np.flatnonzero(~state.done)
    return observe(state, state.current_player[live].astype(np.intp), games=live)


FIELDS = ("hand", "stock", "stock_size", "discard", "top_card", "current_player", "phase")


@pytest.mark.parametrize("players", [2, 4])
def test_samples_do_not_depend_on_the_true_hidden_cards(players):
    rules = load_rules("classic")
    observations = mid_round_observations(rules, players)
    agent = SearchAgent(rules, players)  # expert rollouts, expert as the model
    # Two true tables behind each observation, dealt differently but seen the same way.
    tables = [from_observations(rules, observations, 1, seed=seed) for seed in (11, 12)]
    seen = [observe(table, np.zeros(table.batch, dtype=np.intp)) for table in tables]
    np.testing.assert_array_equal(seen[0], observations)
    np.testing.assert_array_equal(seen[1], observations)
    assert (tables[0].hand[:, 1:] != tables[1].hand[:, 1:]).any(), "the hidden hands must differ"
    drawn = [agent.sample(view, 16, seed=5) for view in seen]
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(drawn[0], field), getattr(drawn[1], field), field)
    other_seed = agent.sample(seen[0], 16, seed=6)
    assert (other_seed.hand != drawn[0].hand).any()


def test_the_belief_favours_deals_that_explain_the_last_play():
    rules = load_rules("classic")
    observations = mid_round_observations(rules, 2, games=48)
    agent = SearchAgent(rules, 2, pool=8, floor=0.05)
    pool = from_observations(rules, observations, 16 * 8, seed=9)
    weights = agent.likelihood(pool)
    assert weights.min() == pytest.approx(0.05) and weights.max() == 1.0
    kept = agent.sample(observations, 16, seed=9)
    # Resampling by weight keeps deals the model finds likelier than the uniform pool.
    assert agent.likelihood(kept).mean() > weights.mean() + 0.05
    # Every kept deal is one of the pool's (same observation, same draw) and consistent.
    assert set(kept.hand[:, 1].tolist()) <= set(pool.hand[:, 1].tolist())
    np.testing.assert_array_equal(kept.hand[:, 0], np.repeat(pool.hand[::128, 0], 16))


def test_a_policy_model_gives_graded_weights():
    rules = load_rules("classic")
    observations = mid_round_observations(rules, 2)
    agent = agents.load("search", rules, 2)  # a shipped policy rolls out and models
    assert agent.default_policy is agent.model
    assert hasattr(agent.model, "network")
    weights = agent.likelihood(from_observations(rules, observations, 8, seed=1))
    inner = weights[(weights > agent.floor + 1e-9) & (weights < 1.0)]
    assert inner.size > 0, "a policy's probabilities are not all 0 or 1"


def test_search_starts_from_the_policy_choice():
    """With a margin nothing can beat, search plays exactly its rollout policy's choice."""
    rules = load_rules("classic")
    observations = mid_round_observations(rules, 2)
    state = from_observations(rules, observations, 1, seed=2)
    masks = engine.unpack_actions(state.legal_bits, rules.num_actions)
    agent = agents.load("search:samples=4,horizon=6,margin=1e9", rules, 2)
    np.testing.assert_array_equal(
        agent.act(observations, masks), agent.default_policy.act(observations, masks)
    )


@pytest.mark.parametrize(
    ("players", "name"),
    [(2, "search:samples=4,horizon=6"), (4, "search:samples=4,horizon=6,pool=2")],
)
def test_search_plays_legal_moves_in_the_aec_and_vector_envs(players, name):
    agent = agents.load(name, "classic", players)
    assert isinstance(agent, SearchAgent) and (agent.samples, agent.horizon) == (4, 6)
    env = sto_odno_v0.env(rules="classic", players=players, illegal_action="raise")
    env.reset(seed=players)
    moves = 0
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        action = None
        if not (terminated or truncated):
            action = agent(observation["observation"], observation["action_mask"])
            assert observation["action_mask"][action] == 1
            moves += 1
        env.step(action)
    assert moves > 10
    vector = StoOdnoVectorEnv(num_envs=8, rules="classic", players=players, opponents=agent)
    observations, infos = vector.reset(seed=players)
    for _ in range(20):
        actions = agent.act(observations, infos["action_mask"])
        assert (infos["action_mask"][np.arange(len(actions)), actions] == 1).all()
        observations, _, _, _, infos = vector.step(actions)


def test_search_arguments():
    agent = agents.load("search:samples=3,pool=2,floor=0.5,policy=expert,model=greedy")
    assert (agent.samples, agent.pool, agent.floor) == (3, 2, 0.5)
    assert type(agent.default_policy).__name__ == "ExpertAgent"
    assert type(agent.model).__name__ == "GreedyAgent"
    # The rollouts are the policy the index measured best inside the search at the table,
    # else the rule set's recommended policy there, and the expert's where none serves it.
    from sto_odno_env.bots.catalog import index
    from sto_odno_env.bots.counts import PlayerCountError
    from sto_odno_env.bots.registry import search_policy_name

    # (Each measured table's own policy is checked with its outcome below.)
    assert search_policy_name(load_rules("classic"), 4) == "ppo-classic-first"
    assert search_policy_name(load_rules("yard"), 2) == "ppo-yard"
    assert search_policy_name(load_rules("yard"), 5) == "ppo-yard"
    assert search_policy_name(load_rules("ukrainian"), 3) == "ppo-ukrainian"
    assert search_policy_name(load_rules("micro"), 2) == "expert"  # no recommended policy
    with pytest.raises(PlayerCountError, match=r"allowed: 2\.\.4"):  # nines seats at most 4
        search_policy_name(load_rules("nines"), 5)
    assert search_policy_name(load_rules("classic"), None) == "expert"
    # Where a table's default values rollouts otherwise, its policy ships the critic that
    # takes; a policy or outcome given by name replaces the table's default.
    measured = [
        (rules_name, players, default.policy, default.outcome)
        for rules_name, tables in index().search.items()
        for players, default in tables.items()
    ]
    assert measured, "the index names no measured search default"
    for rules_name, players, policy, outcome in measured:
        default = agents.load("search", rules_name, players)
        assert default.outcome == outcome
        assert search_policy_name(load_rules(rules_name), players) == policy
        assert agents.load("search:samples=8", rules_name, players).outcome == outcome
        assert agents.load("search:policy=expert", rules_name, players).outcome == "table"
        if outcome == "value":
            assert default.default_policy.value_network is not None
    assert agents.load("search", "classic", 2).outcome == "table"
    policy = agents.load("search", "ukrainian", 3).default_policy
    assert type(policy).__name__ == "TorchPolicyAgent"
    assert type(agents.load("search", "micro", 2).default_policy).__name__ == "ExpertAgent"
    for name, message in [
        ("search:pool=0", "pool must be >= 1"),
        ("search:floor=0", "floor must be in (0, 1]"),
        ("search:policy=nobody", "unknown agent 'nobody'"),
        ("search:depth=2", "allowed: samples=..., horizon=..., margin=..., outcome=..., pool=..."),
    ]:
        with pytest.raises(AgentError, match=message.replace("(", r"\(").replace("]", r"\]")):
            agents.load(name)


def test_the_standing_outcome_is_the_expected_reward_of_the_finishing_order():
    """``outcome="standing"``: linear in place like the match reward, each other seat
    outlasted with probability room0² / (room0² + roomj²), a seat already out outlasted."""
    from sto_odno_env.bots.rollout import _standing_value

    rules = load_rules("classic")
    target = float(rules.target)
    state = engine.init(rules, 4, 4, seed=0)
    totals = np.array([[0, 0, 0, 0], [0, 50, 50, 50], [0, 50, 50, 50], [90, 0, 0, 0]])
    state.in_match[:] = 0b1111
    state.in_match[2] = 0b1011  # seat 2 is out
    games = np.arange(4)
    value = _standing_value(state, games, totals, target)
    assert value[0] == pytest.approx(0.0)  # even standings: the mean of the places' rewards
    room0, room = target, target - 50
    beat = room0**2 / (room0**2 + room**2)
    assert value[1] == pytest.approx(-1 + 2 * beat)
    assert value[2] == pytest.approx(-1 + 2 * (2 * beat + 1) / 3)
    assert value[3] < -0.9  # closest to the target of four at zero
    state.in_match[1] = 0b1110  # seat 0 out: its reward has already come
    assert _standing_value(state, games, totals, target)[1] == 0.0


def test_search_with_the_standing_outcome_plays_legal_moves():
    rules = load_rules("classic")
    agent = agents.load("search:samples=4,horizon=6,outcome=standing", rules, 4)
    state = engine.init(rules, 4, 6, seed=9)
    live = np.flatnonzero(~state.done)
    obs = observe(state, state.current_player[live].astype(np.intp), games=live)
    masks = engine.unpack_actions(state.legal_bits[live], rules.num_actions)
    chosen = agent.act(obs, masks)
    assert masks[np.arange(len(chosen)), chosen].all()
    with pytest.raises(AgentError, match="outcome must be one of table, standing, value"):
        agents.load("search:outcome=first", rules, 4)


def policy_with_critic(tmp_path, rules, reward="first", seed=0):
    """A policy file with an untrained actor and critic, loaded as an agent."""
    import torch

    from sto_odno_env.bots.checkpoint import build_network, policy_record, with_value, write_atomic
    from sto_odno_env.views.observation import obs_size

    torch.manual_seed(seed)
    width = obs_size(rules)
    actor = build_network(width, [16], rules.num_actions)
    critic = build_network(width, [16], 1)
    path = tmp_path / "critic.pt"
    record = policy_record(actor, [16], rules.to_dict())
    write_atomic(path, with_value(record, critic.state_dict(), reward))
    return path


def test_the_value_outcome_is_the_critics_estimate_of_seat_0_or_its_decided_place(tmp_path):
    """``outcome="value"``: a rollout ends in the critic's value of seat 0's observation of
    the sampled deal, or in the reward of a place decided within it."""
    rules = load_rules("classic")
    path = policy_with_critic(tmp_path, rules)
    agent = agents.load(f"search:samples=2,horizon=1,outcome=value,policy={path}", rules, 4)
    policy = agent.default_policy
    state = engine.init(rules, 4, 6, seed=5)
    masks = engine.unpack_actions(state.legal_bits, rules.num_actions)
    actions = np.argmax(masks, axis=1)
    stepped = state.take(np.arange(6))
    engine.step(stepped, actions)
    values = agent._rollout(state.take(np.arange(6)), actions)
    open_games = np.flatnonzero(stepped.rounds_ended == 0)
    assert open_games.size
    expected = policy.values(observe(stepped, np.zeros(open_games.size, np.intp), games=open_games))
    np.testing.assert_allclose(values[open_games], expected)
    # Seat 0 out with the worst place, and a match seat 0 ended in first place.
    stepped.in_match[0] = 0b1110
    stepped.step_terminated[1] = True
    games = np.array([0, 1])
    decided = agent._learned_value(stepped, games, np.array([-1.0, 1.0]))
    np.testing.assert_allclose(decided, [-1 / 3, 1.0])


def test_the_value_outcome_needs_a_policy_with_a_critic(tmp_path):
    rules = load_rules("classic")
    with pytest.raises(AgentError, match="needs a rollout policy shipped with its value network"):
        agents.load("search:outcome=value,policy=expert", rules, 4)
    path = policy_with_critic(tmp_path, rules)
    agent = agents.load(f"search:samples=4,horizon=6,outcome=value,policy={path}", rules, 4)
    state = engine.init(rules, 4, 6, seed=9)
    obs = observe(state, state.current_player.astype(np.intp))
    masks = engine.unpack_actions(state.legal_bits, rules.num_actions)
    chosen = agent.act(obs, masks)
    assert masks[np.arange(len(chosen)), chosen].all()


def test_action_values_are_gains_over_the_baseline_and_the_choice_follows_them():
    """``action_values`` (the targets of expert iteration): the baseline's own gain is 0,
    illegal actions carry nothing, the choice is the best gain less ``margin`` errors where
    that is positive and the baseline otherwise, and a seed repeats them."""
    rules = load_rules("classic")
    observations = mid_round_observations(rules, 4, games=48)
    masks = engine.unpack_actions(
        from_observations(rules, observations, 1, seed=2).legal_bits, rules.num_actions
    )
    choosing = (masks > 0).sum(axis=1) > 1
    observations, masks = observations[choosing], masks[choosing]
    agent = agents.load("search:samples=8,horizon=8", rules, 4, seed=5)
    choice, baseline, gain, error = agent.action_values(observations, masks)
    rows = np.arange(len(choice))
    np.testing.assert_array_equal(baseline, agent.default_policy.act(observations, masks))
    assert (gain[rows, baseline] == 0).all() and (error[rows, baseline] == 0).all()
    assert (gain[masks == 0] == 0).all() and (error[masks == 0] == 0).all()
    assert (error[(masks > 0)] >= 0).all() and (gain != 0).any()
    score = np.where(masks > 0, gain - agent.margin * error, -np.inf)
    improves = score.max(axis=1) > 0
    np.testing.assert_array_equal(choice, np.where(improves, score.argmax(axis=1), baseline))
    again = agents.load("search:samples=8,horizon=8", rules, 4, seed=5)
    repeat_choice, _, repeat_gain, repeat_error = again.action_values(observations, masks)
    np.testing.assert_array_equal(repeat_choice, choice)
    np.testing.assert_array_equal(repeat_gain, gain)
    np.testing.assert_array_equal(repeat_error, error)
    with pytest.raises(ValueError, match="more than one legal action"):
        agent.action_values(observations[:1], np.eye(rules.num_actions, dtype=np.int8)[:1])
