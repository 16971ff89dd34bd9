"""reward="first": +1 for first place alone, −1/(P−1) for any other place, paid when the
match reward would be; the same games as reward="match" in the AEC env, the learner's table
and the trainer's config."""

from __future__ import annotations

import numpy as np
import pytest

from sto_odno_env import sto_odno_v0
from sto_odno_env.envs.learner import LearnerGames
from sto_odno_env.game.rewards import first_place


def expected_first(match_total: float, players: int) -> float:
    return 1.0 if match_total >= 1.0 - 1e-6 else -1.0 / (players - 1)


def test_first_place_maps_only_a_sole_first() -> None:
    paid = np.array([1.0, 0.0, -1.0, 0.5, 1.0 - 1e-9])  # 0.5: a tie for first at 3 players
    assert first_place(paid, 3).tolist() == [1.0, -0.5, -0.5, -0.5, 1.0]
    assert first_place(np.array([1.0, -1.0]), 2).tolist() == [1.0, -1.0]


def play_rewards(rules: str, reward: str, players: int, seed: int) -> tuple[list[dict], object]:
    """Every live step's rewards of one AEC match of random legal actions."""
    env = sto_odno_v0.env(rules=rules, players=players, reward=reward)
    env.reset(seed=seed)
    generator = np.random.default_rng(seed)
    paid = []
    while env.agents:
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(generator.choice(np.flatnonzero(observation["action_mask"]))))
        paid.append(dict(env.rewards))
    return paid, env.unwrapped.engine_state()


# last_survivor (classic): the others go out before the match ends; first_loser (yard):
# the match ends with every player still in, ranked by total.
@pytest.mark.parametrize(("rules", "players"), [("classic", 3), ("classic", 4), ("yard", 3)])
def test_aec_pays_each_player_once_by_first_place(rules: str, players: int) -> None:
    checked = 0
    for seed in range(5):
        first, state = play_rewards(rules, "first", players, seed)
        match, _ = play_rewards(rules, "match", players, seed)
        assert len(first) == len(match)  # the same match: rewards do not change play
        if not state.terminated[0]:
            continue
        for agent in match[0]:
            match_total = sum(step.get(agent, 0.0) for step in match)
            payments = [step[agent] for step in first if step.get(agent, 0.0) != 0.0]
            assert payments == [pytest.approx(expected_first(match_total, players))]
        winner = f"player_{int(state.final_ranking[0, 0])}"
        assert sum(step.get(winner, 0.0) for step in first) == pytest.approx(1.0)
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize(
    ("rules", "players"), [("classic", 2), ("classic", 3), ("classic", 4), ("nines", 3)]
)
def test_learner_rewards_are_the_match_rewards_mapped(rules: str, players: int) -> None:
    """The learner's episodes under both modes, with the same deterministic actions: the
    same ends, and each ended episode's reward is its match reward's first-place value."""
    runs = {  # random opponents (the engine plays them): many short matches
        mode: LearnerGames(rules, players, 64, opponents=None, reward=mode, seed=3)
        for mode in ("match", "first")
    }
    for games in runs.values():
        games.reset(seed=3)
    ended = 0
    for _ in range(150):
        results = {}
        for mode, games in runs.items():
            masks = games.masks().astype(bool)
            results[mode] = games.step(masks.argmax(axis=1))
        match, first = results["match"], results["first"]
        done = match["terminated"] | match["truncated"]
        assert np.array_equal(done, first["terminated"] | first["truncated"])
        mapped = [expected_first(value, players) for value in match["reward"][match["terminated"]]]
        assert first["reward"][first["terminated"]] == pytest.approx(mapped)
        assert not first["reward"][~done].any() and not first["reward"][match["truncated"]].any()
        ended += int(match["terminated"].sum())
    assert ended >= 40


def test_the_trainer_refuses_first_with_self_play_games() -> None:
    from train.config import load_config
    from train.config_keys import ConfigError

    assert load_config(items=["reward=first"]).reward == "first"
    with pytest.raises(ConfigError, match="reward=first is not allowed with self_play_games"):
        load_config(items=["reward=first", "self_play_games=64"])
    with pytest.raises(ConfigError, match="allowed: match, round or first"):
        load_config(items=["reward=places"])
