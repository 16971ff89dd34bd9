"""The env each RLlib env runner steps for ``train/rllib_ppo.py``: :class:`LeagueVectorEnv`
(the kit's vector env against a league, as RLlib wants it: next-step auto-reset, the Dict
observation of ``train/rllib/module.py``'s ``KEYS``, illegal actions raise), its creator
registered with Ray (:func:`make_env`), and the functions the driver runs on every runner
(``foreach_env_runner``): seeding its league, pushing the driver's weights and snapshots,
timed sampling.

Ray and torch are imported by the runner that builds the env, not by importing this module.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from sto_odno_env.bots.checkpoint import build_network
from sto_odno_env.envs.gym_env import StoOdnoVectorEnv
from sto_odno_env.game.rules import load_rules
from sto_odno_env.views.observation import obs_size
from train import deferred_import
from train.config_keys import LeagueConfig
from train.rllib.module import KEYS

if TYPE_CHECKING:
    import torch
else:  # loaded on first use, so that a bad command line fails before torch's seconds of loading
    torch = deferred_import("torch")


class LeagueVectorEnv(StoOdnoVectorEnv):
    """``num_envs`` games against the league, as RLlib wants them: next-step auto-reset, the
    Dict observation of :data:`KEYS`, illegal actions raise. Counts the learner decisions it
    stepped (``decisions``)."""

    def __init__(self, num_envs: int, env_config: dict[str, Any]):
        from train.ppo_parts.league import League  # torch and the bots, on the runner

        rules = load_rules(env_config["rules"])
        players = int(env_config["players"])
        if env_config.get("threads"):
            torch.set_num_threads(int(env_config["threads"]))
        current = build_network(obs_size(rules), list(env_config["hidden"]), rules.num_actions)
        self.league = League(
            LeagueConfig(**env_config["league"]),
            rules,
            players,
            num_envs,
            current,
            int(env_config["seed"]),
            torch.device("cpu"),
        )
        super().__init__(
            num_envs,
            rules,
            players,
            opponents=self.league,
            reward=env_config["reward"],
            illegal_action="raise",
            autoreset_mode="next_step",
            observation_keys=KEYS,
        )
        self.decisions = 0

    def step(self, actions):
        self.decisions += self.num_envs - int(np.count_nonzero(self._autoreset))
        return super().step(actions)


def make_env(env_config: dict[str, Any]) -> LeagueVectorEnv:
    """The creator registered with ``ray.tune.register_env``: RLlib calls it with
    ``num_envs`` in the config (``gym_env_vectorize_mode="vector_entry_point"``)."""
    return LeagueVectorEnv(int(env_config.get("num_envs", 1)), dict(env_config))


def runner_env(runner: Any) -> LeagueVectorEnv | None:
    env = getattr(runner, "env", None)
    return None if env is None else env.unwrapped


def seed_runner(runner: Any, seed: int) -> None:
    """Give the runner's league its own random streams (RLlib seeds the games already)."""
    env = runner_env(runner)
    if env is not None:
        env.league.reseed(seed, int(runner.worker_index))


def push_league(runner: Any, current: dict | None, snapshots: dict | None) -> dict | None:
    """Load the driver's league weights into the runner's league; return what the runner
    has done (its node, process and learner decisions)."""
    env = runner_env(runner)
    if env is None:
        return None
    league = env.league
    if current is not None:
        league.current.load_state_dict(current)
    if snapshots is not None:
        league.load_snapshots(snapshots)
    import ray

    return {
        "node": ray.get_runtime_context().get_node_id(),
        "pid": os.getpid(),
        "worker_index": int(runner.worker_index),
        "decisions": int(env.decisions),
        "current_checksum": checksum(league.current),
        "snapshots_filled": int(league.filled),
    }


def checksum(network: torch.nn.Module) -> float:
    """A number that tells two networks' weights apart (to check the pushes)."""
    with torch.no_grad():
        return float(sum((p.double() * (i + 1)).sum() for i, p in enumerate(network.parameters())))


def timed_sampling(runner: Any, seconds: float) -> dict | None:
    """Sample on this runner for about ``seconds``: learner decisions and time taken."""
    env = runner_env(runner)
    if env is None:
        return None
    runner.sample()  # warm up
    start, before = time.perf_counter(), env.decisions
    while time.perf_counter() - start < seconds:
        runner.sample()
    return {"decisions": env.decisions - before, "seconds": time.perf_counter() - start}
