"""The vector envs with their games split across worker processes (``workers > 1``).

Opponents that decide from the observation (the greedy bot) make the games deterministic,
so the sharded envs must reproduce the one-process envs exactly: observations, rewards,
flags, final observations and masks, step by step.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest

from sto_odno_env.bots.heuristic import GreedyAgent
from sto_odno_env.envs.gym_env import StoOdnoVectorEnv
from sto_odno_env.envs.sharded import ShardedLearnerGames, WorkerError
from sto_odno_env.game import engine


class SlowPolicy:
    """An opponent that takes two seconds a decision (a step to interrupt)."""

    needs_observation = False

    def act(self, observations, masks):
        time.sleep(2)
        return GreedyAgent().act(observations, masks)


class FailingPolicy:
    """An opponent that raises when asked to act (to see a worker's error come back)."""

    needs_observation = True

    def act(self, observations, masks):
        raise RuntimeError("this opponent cannot play")


def _play(env: StoOdnoVectorEnv, steps: int, seed: int) -> list[np.ndarray]:
    observations, infos = env.reset(seed=seed)
    generator = np.random.default_rng(seed)
    trail = [observations, infos["action_mask"], infos["learner_seat"]]
    for _ in range(steps):
        actions = engine.sample_actions(env.games.legal_bits, generator.random(env.num_envs))
        observations, rewards, terminated, truncated, infos = env.step(actions)
        trail += [observations, rewards, terminated, truncated, infos["action_mask"]]
        if "final_obs" in infos:
            trail += [infos["final_obs"][infos["_final_obs"]], infos["_final_obs"]]
    return trail


@pytest.mark.parametrize("players", [2, pytest.param(4, marks=pytest.mark.slow)])
def test_sharded_vector_env_plays_the_same_games(players):
    kwargs = {"num_envs": 48, "players": players, "opponents": GreedyAgent()}
    alone = StoOdnoVectorEnv(**kwargs)
    sharded = StoOdnoVectorEnv(workers=3, **kwargs)
    try:
        expected, got = _play(alone, 120, seed=7), _play(sharded, 120, seed=7)
    finally:
        sharded.close()
    assert len(expected) == len(got)
    ended = sum(int(flags.sum()) for flags in expected[3::5] if flags.dtype == bool)
    assert ended > 0  # episodes ended, so the final observations were compared too
    for one, other in zip(expected, got, strict=True):
        np.testing.assert_array_equal(one, other)


def test_sharded_games_check_actions_and_report_worker_errors():
    games = ShardedLearnerGames(batch=6, workers=2, illegal_action="raise")
    try:
        games.reset(seed=1)
        actions = engine.sample_actions(games.legal_bits, np.full(6, 0.5))
        legal = games.masks()
        actions[4] = int(np.flatnonzero(legal[4] == 0)[0])
        with pytest.raises(engine.IllegalActionError, match="in game 4"):
            games.step(actions)
        games.set_opponents(FailingPolicy())
        actions = engine.sample_actions(games.legal_bits, np.full(6, 0.5))
        with pytest.raises(WorkerError, match="this opponent cannot play"):
            games.step(actions)
    finally:
        games.close()
    with pytest.raises(RuntimeError, match="closed"):
        games.reset(seed=1)


def test_sharded_penalize_matches_one_process():
    results = []
    for workers in (1, 2):
        env = StoOdnoVectorEnv(num_envs=4, workers=workers, illegal_action="penalize")
        try:
            env.reset(seed=3)
            forbidden = np.argmin(env.action_masks(), axis=1)  # ids of the space, masked
            _, rewards, terminated, _, infos = env.step(forbidden)
            results.append((rewards.copy(), terminated.copy(), infos["illegal_action"].copy()))
        finally:
            env.close()
    for one, other in zip(*results, strict=True):
        np.testing.assert_array_equal(one, other)
    assert (results[0][0] == -1.0).all() and results[0][1].all()


@pytest.mark.parametrize(
    ("workers", "message"),
    [(0, "positive integer"), (True, "positive integer"), (9, "more than the 8 games")],
)
def test_bad_worker_counts_are_refused(workers, message):
    with pytest.raises(ValueError, match=message):
        ShardedLearnerGames(batch=8, workers=workers)


@pytest.mark.parametrize("workers", [0, 1.0, "2", True])
def test_the_vector_env_refuses_a_worker_count_that_is_not_a_positive_integer(workers):
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        StoOdnoVectorEnv(num_envs=8, workers=workers)


def test_sb3_vec_env_with_workers_serves_masks():
    pytest.importorskip("stable_baselines3")
    from sto_odno_env.envs.sb3 import StoOdnoVecEnv

    vec_env = StoOdnoVecEnv(num_envs=8, workers=2, seed=5, opponents=GreedyAgent())
    alone = StoOdnoVecEnv(num_envs=8, seed=5, opponents=GreedyAgent())
    try:
        np.testing.assert_array_equal(vec_env.reset(), alone.reset())
        masks = vec_env.env_method("action_masks")
        assert len(masks) == 8
        np.testing.assert_array_equal(np.stack(masks), alone.action_masks())
        actions = np.argmax(np.stack(masks), axis=1)
        observations, _, dones, infos = vec_env.step(actions)
        assert observations.shape == (8, vec_env.observation_space.shape[0])
        assert dones.shape == (8,) and len(infos) == 8
    finally:
        vec_env.close()


class Interrupt(Exception):
    pass


def _interrupt(signum, frame):
    raise Interrupt


def test_an_interrupted_step_closes_the_games_and_workers_ignore_ctrl_c():
    games = ShardedLearnerGames(batch=4, workers=2)
    previous = signal.signal(signal.SIGINT, _interrupt)
    try:
        games.reset(seed=3)
        workers = list(games._processes)
        for worker in workers:  # Ctrl-C to the process group reaches them too
            os.kill(worker.pid, signal.SIGINT)
        actions = engine.sample_actions(games.legal_bits, np.full(4, 0.5))
        games.step(actions)  # the workers are still there
        games.set_opponents(SlowPolicy())
        actions = engine.sample_actions(games.legal_bits, np.full(4, 0.5))
        timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        with pytest.raises(Interrupt):
            games.step(actions)  # two seconds in the workers: the signal comes meanwhile
    finally:
        signal.signal(signal.SIGINT, previous)
        games.close()
    assert not any(worker.is_alive() for worker in workers)
    with pytest.raises(RuntimeError, match="closed when Interrupt cut a 'step' short"):
        games.step(actions)
