"""Training throughput: ``python train/throughput.py [--policy NAME] [--seconds S]``.

Prints one table (medians of ``--repeats`` runs, the two trainer modes interleaved):

* the trainer with the default config, in both modes of ``overlap``: learner decisions per
  second of whole updates one after another, overlapped (the next rollout collected in a
  second process while this one trains, train/ppo_parts/overlap.py) and in one process (collection,
  then update), and for the one-process collection alone; their approx_kl and clip
  fraction (the overlapped update trains on data one update behind);
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

from sto_odno_env.bots.registry import load as load_agent
from sto_odno_env.envs.gym_env import StoOdnoVectorEnv
from train import ppo
from train.run.command_line import parse
from train.run.protocol import Counters, Update


def trainer_rate(seconds: float, overrides: list[str]) -> tuple[float, float]:
    """One process: (decisions/s of collection + update, decisions/s of collection alone)."""
    settings = parse(ppo.SPEC, ["--out", "/tmp/sto-odno-throughput", *overrides, "overlap=false"])
    trainer = ppo.PPO(settings)
    counters = Counters()
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


def update_rate(seconds: float, overrides: list[str], overlap: bool) -> dict[str, float]:
    """Decisions/s of whole updates (:meth:`PPO.train` one after another, as the run
    harness calls it) in the mode ``overlap``, and the updates' mean approx_kl and clip
    fraction."""
    settings = parse(
        ppo.SPEC,
        ["--out", "/tmp/sto-odno-throughput", *overrides, f"overlap={str(overlap).lower()}"],
    )
    trainer = ppo.PPO(settings)
    try:
        counters = Counters()
        for _ in range(3):  # warm up: the collector's start, its first rollouts
            _advance(counters, trainer.train(counters))
        steps = elapsed = 0.0
        kl, clipfrac = [], []
        while elapsed < seconds:
            started = time.perf_counter()
            update = trainer.train(counters)
            elapsed += time.perf_counter() - started
            steps += update.decisions
            _advance(counters, update)
            kl.append(update.stats["approx_kl"])
            clipfrac.append(update.stats["clipfrac"])
    finally:
        trainer.close()
    return {
        "rate": steps / elapsed,
        "approx_kl": float(np.mean(kl)),
        "clipfrac": float(np.mean(clipfrac)),
    }


def _advance(counters: Counters, update: Update) -> None:
    counters.update += 1
    counters.global_step += update.decisions


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
    parser.add_argument("--policy", default="ppo-classic", help="opponent policy")
    parser.add_argument("--seconds", type=float, default=10.0, help="per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--batch", type=int, default=8192, help="vector env batch")
    parser.add_argument(
        "--trainer-only", action="store_true", help="only the trainer's figures (not the env's)"
    )
    parser.add_argument("overrides", nargs="*", help="trainer config overrides, key=value")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    if args.repeats < 1 or args.seconds <= 0:
        parser.error("--repeats must be >= 1 and --seconds > 0")
    agent = load_agent(args.policy, "classic", 2)
    rows = []
    figures: dict[str, list[float]] = {}
    lag: dict[str, list[float]] = {}
    for _ in range(args.repeats):
        for overlap in (True, False):
            measured = update_rate(args.seconds, args.overrides, overlap)
            mode = "overlapped" if overlap else "one process"
            figures.setdefault(f"trainer updates, {mode}", []).append(measured["rate"])
            lag.setdefault(f"{mode}: approx_kl", []).append(measured["approx_kl"])
            lag.setdefault(f"{mode}: clip fraction", []).append(measured["clipfrac"])
        total, collect = trainer_rate(args.seconds, args.overrides)
        figures.setdefault("trainer: one process, collection + update", []).append(total)
        figures.setdefault("trainer: one process, collection alone", []).append(collect)
        if args.trainer_only:
            continue
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
    for name, values in lag.items():
        print(f"{name:<42} {statistics.median(values):>12.4f}")
    ratios = [
        a / b
        for a, b in zip(
            figures["trainer updates, overlapped"],
            figures["trainer updates, one process"],
            strict=True,
        )
    ]  # each repeat's pair, measured one after the other
    print(f"overlapped / one process: {statistics.median(ratios):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
