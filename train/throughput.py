"""Training throughput: ``python train/throughput.py [--policy NAME] [--seconds S]``.

Prints one table (medians of ``--repeats`` runs, one process):

* the trainer with the default config: learner decisions per second for collection and
  update together, and for collection alone;
* the vector env (batch 8192, 2 players) with a trained policy as the opponent: learner
  steps per second, beside the policy's own inference rate (decisions per second of its
  forward pass at the same batch) and the same env with random opponents.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
import torch

from agents.registry import load as load_agent
from sto_odno_env.gym_env import StoOdnoVectorEnv
from train import ppo, run


def trainer_rate(seconds: float, overrides: list[str]) -> tuple[float, float]:
    """(decisions/s of collection + update, decisions/s of collection alone)."""
    settings = run.parse(ppo.SPEC, ["--out", "/tmp/sto-odno-throughput", *overrides])
    trainer = ppo.PPO(settings)
    counters = run.Counters()
    trainer.train(counters)  # warm up
    steps = collect_time = total_time = 0.0
    while total_time < seconds:
        started = time.perf_counter()
        trainer.rollout()  # the same calls as PPO.train, timed apart
        self_play = trainer.self_play_rollout()
        collected = time.perf_counter()
        advantages, returns = trainer.gae()
        trainer.update(advantages, returns, self_play, counters.global_step)
        total_time += time.perf_counter() - started
        collect_time += collected - started
        steps += trainer.batch_size
    return steps / total_time, steps / collect_time


def env_rate(opponent, batch: int, seconds: float) -> float:
    """Learner steps per second of the vector env against ``opponent`` (random actions)."""
    env = StoOdnoVectorEnv(num_envs=batch, opponents=opponent)
    _, infos = env.reset(seed=0)
    generator = np.random.default_rng(0)
    steps, elapsed = 0, 0.0
    while elapsed < seconds:
        masks = infos["action_mask"]
        scores = generator.random(masks.shape) * masks
        started = time.perf_counter()
        _, _, _, _, infos = env.step(scores.argmax(1))
        elapsed += time.perf_counter() - started
        steps += batch
    return steps / elapsed


def inference_rate(agent, batch: int, seconds: float) -> float:
    """Decisions per second of the policy's forward pass (with masking) at ``batch``."""
    network = agent.network  # sized by the rules it was trained for
    width, actions = network[0].in_features, network[-1].out_features
    observations = np.random.default_rng(0).random((batch, width), dtype=np.float32)
    masks = np.ones((batch, actions), dtype=np.int8)
    agent.act(observations, masks)
    calls, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        agent.act(observations, masks)
        calls += 1
    return calls * batch / (time.perf_counter() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python train/throughput.py",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--policy", default="ppo-classic-2p", help="opponent policy")
    parser.add_argument("--seconds", type=float, default=10.0, help="per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--batch", type=int, default=8192, help="vector env batch")
    parser.add_argument("overrides", nargs="*", help="trainer config overrides, key=value")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    agent = load_agent(args.policy, "classic", 2)
    rows = []
    figures: dict[str, list[float]] = {}
    for _ in range(args.repeats):
        total, collect = trainer_rate(args.seconds, args.overrides)
        figures.setdefault("trainer: collection + update", []).append(total)
        figures.setdefault("trainer: collection alone", []).append(collect)
        figures.setdefault(f"vector env, {args.policy} opponent", []).append(
            env_rate(agent, args.batch, args.seconds)
        )
        figures.setdefault(f"{args.policy} inference", []).append(
            inference_rate(agent, args.batch, args.seconds / 2)
        )
        figures.setdefault("vector env, random opponent", []).append(
            env_rate(None, args.batch, args.seconds / 2)
        )
    for name, values in figures.items():
        rows.append((name, statistics.median(values), min(values), max(values)))
    print(f"torch threads 1, batch {args.batch}, medians of {args.repeats}")
    print(f"{'what':<42} {'per second':>12} {'min':>12} {'max':>12}")
    for name, median, low, high in rows:
        print(f"{name:<42} {median:>12,.0f} {low:>12,.0f} {high:>12,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
