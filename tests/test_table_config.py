"""One table config (sto_odno_env.envs.table_config): built and checked once, taken by every
learner env and by LearnerGames, by keyword arguments or as ``config=``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from agents import GreedyAgent
from sto_odno_env import sto_odno_v0
from sto_odno_env.envs.gym_env import StoOdnoEnv, StoOdnoVectorEnv
from sto_odno_env.envs.learner import LearnerGames
from sto_odno_env.envs.sharded import learner_games
from sto_odno_env.envs.table_config import TableConfig, table_config
from tests.helpers import sb3_vec_env


def test_positional_keyword_and_config_build_the_same_table():
    config = TableConfig("classic", 3, learner_seat=1, reward="round")
    assert StoOdnoEnv("classic", 3, learner_seat=1, reward="round").config == config
    assert StoOdnoEnv(config=config).config is config
    assert StoOdnoVectorEnv(4, "classic", 3, learner_seat=1, reward="round").config == config
    assert sb3_vec_env()(4, config=config).config is config
    assert table_config(config, players=4).players == 4  # a copy with one change
    assert config.players == 3


def test_the_same_config_plays_the_same_games():
    config = TableConfig("ukrainian", 3, opponents=GreedyAgent("ukrainian"))
    one = LearnerGames(batch=4, config=config)
    two = LearnerGames("ukrainian", 3, 4, opponents=GreedyAgent("ukrainian"))
    observations = [one.reset(seed=7), two.reset(seed=7)]
    np.testing.assert_array_equal(*observations)
    for step in range(20):
        actions = np.argmax(one.masks() * (np.arange(42) + step % 5), axis=1)
        first, second = one.step(actions), two.step(actions)
        for key in ("observation", "reward", "terminated", "truncated"):
            np.testing.assert_array_equal(first[key], second[key])


def test_the_config_is_frozen_and_keeps_loaded_rules():
    config = TableConfig("yard", 2)
    assert config.rules.name == "yard"
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.players = 3  # type: ignore[misc]
    assert "rules='yard'" in repr(config)


def test_opponents_by_name_are_loaded_once_and_set_opponents_checks_them():
    config = TableConfig("classic", 3, opponents=["greedy", "expert"])
    assert [type(p).__name__ for p in config.opponents] == ["GreedyAgent", "ExpertAgent"]
    env = StoOdnoVectorEnv(2, config=config)
    env.set_opponents("greedy")
    assert type(env.config.opponents).__name__ == "GreedyAgent"
    with pytest.raises(ValueError, match="expected 2 policies"):
        env.set_opponents(["greedy"])
    assert type(env.config.opponents).__name__ == "GreedyAgent"  # unchanged


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: TableConfig(opponents=5), TypeError, "is not a policy"),
        (lambda: StoOdnoVectorEnv(2, oponents="expert"), TypeError, "unknown setting 'oponents'"),
        (lambda: StoOdnoEnv(config={"players": 2}), TypeError, "must be a TableConfig"),
        (lambda: StoOdnoEnv(workers=2), ValueError, "allowed: 1"),
        (lambda: LearnerGames(batch=4, workers=2), ValueError, "learner_games()"),
        (lambda: learner_games(batch=2, workers=3), ValueError, "more than the 2 games"),
        (lambda: TableConfig(players=3, learner_seat=-1), ValueError, "not a seat 0..2"),
    ],
)
def test_bad_settings_are_refused_once(call, error, message):
    with pytest.raises(error, match=None) as raised:
        call()
    assert message in str(raised.value)


def test_the_aec_env_checks_its_settings_with_the_config():
    for settings in ({"reward": "points"}, {"illegal_action": "ignore"}, {"players": 9}):
        with pytest.raises(ValueError) as from_config:
            TableConfig(**settings)
        with pytest.raises(ValueError) as from_env:
            sto_odno_v0.env(**settings)
        assert str(from_env.value) == str(from_config.value)
