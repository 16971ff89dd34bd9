"""Vector env with a policy opponent, with and without ``ready_share``: one table.

``python scripts/vector_bench.py [--policy NAME] [--batch N] [--shares 0.9,0.95]
[--seconds S] [--repeats R]``

Every repeat measures each mode in turn (off, then each share), so a busy machine slows
them alike: read the ratios. A mode's figure is the median over the repeats of its
learner steps per second: the learner's decisions applied (every game per step without
the option; the games that were ready with it) over the time spent in ``env.step``. The
learner plays random legal actions, chosen outside the timed calls. 'rounds' is the
engine calls per step (the learner's move and each round of opponent moves), 'ready' the
share of the games at the learner's turn when a step returns.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np


def measure(opponent, batch: int, share: float | None, seconds: float, seed: int = 0):
    """(learner steps/s, engine calls per step, mean ready share) of one timed run."""
    from sto_odno_env.gym_env import StoOdnoVectorEnv

    env = StoOdnoVectorEnv(num_envs=batch, opponents=opponent, ready_share=share)
    games = env.games
    calls = [0]
    engine_step = games._engine_step

    def counted(*args, **kwargs):  # counts the rounds (one engine call each)
        calls[0] += 1
        return engine_step(*args, **kwargs)

    games._engine_step = counted
    _, infos = env.reset(seed=seed)
    ready = np.ones(batch, dtype=bool)
    generator = np.random.default_rng(seed)
    for _ in range(5):  # to the steady state of stragglers
        masks = infos["action_mask"]
        _, _, _, _, infos = env.step((generator.random(masks.shape) * masks).argmax(1))
        ready = infos.get("ready", ready)
    steps = calls[0] = 0
    elapsed = 0.0
    ready_shares = []
    while elapsed < seconds:
        masks = infos["action_mask"]
        actions = (generator.random(masks.shape) * masks).argmax(1)
        started = time.perf_counter()
        _, _, _, _, infos = env.step(actions)
        elapsed += time.perf_counter() - started
        steps += int(np.count_nonzero(ready))  # the decisions this step applied
        ready = infos.get("ready", np.ones(batch, dtype=bool))
        ready_shares.append(float(ready.mean()))
    env.close()
    return steps / elapsed, calls[0] / len(ready_shares), statistics.fmean(ready_shares)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python scripts/vector_bench.py",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--policy", default="ppo-classic-2p", help="opponent (registry name)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--batch", type=int, default=8192)
    parser.add_argument("--shares", default="0.9,0.95", help="ready_share values, commas")
    parser.add_argument("--seconds", type=float, default=4.0, help="per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (median)")
    args = parser.parse_args(argv)
    try:
        shares = [float(share) for share in args.shares.split(",") if share.strip()]
    except ValueError:
        parser.error(f"--shares {args.shares!r}: allowed: numbers in (0, 1], commas between")
    import torch

    from agents.registry import load as load_agent

    torch.set_num_threads(1)
    opponent = load_agent(args.policy, "classic", args.players)
    modes: list[float | None] = [None, *shares]
    figures: dict[float | None, list[tuple[float, float, float]]] = {m: [] for m in modes}
    for _ in range(args.repeats):
        for mode in modes:
            figures[mode].append(measure(opponent, args.batch, mode, args.seconds))
    base = statistics.median(rate for rate, _, _ in figures[None])
    print(
        f"vector env, {args.players} players, batch {args.batch}, {args.policy} opponent, "
        f"torch threads 1, medians of {args.repeats} x {args.seconds:g} s"
    )
    print(
        f"| {'ready_share':>11} | {'learner steps/s':>15} | {'min':>9} | {'max':>9} "
        f"| {'vs off':>6} | {'rounds':>6} | {'ready':>5} |"
    )
    print(f"|{'-' * 13}|{'-' * 17}|{'-' * 11}|{'-' * 11}|{'-' * 8}|{'-' * 8}|{'-' * 7}|")
    for mode in modes:
        rates = [rate for rate, _, _ in figures[mode]]
        median = statistics.median(rates)
        rounds = statistics.median(r for _, r, _ in figures[mode])
        ready = statistics.median(r for _, _, r in figures[mode])
        name = "off" if mode is None else f"{mode:g}"
        print(
            f"| {name:>11} | {median:>15,.0f} | {min(rates):>9,.0f} | {max(rates):>9,.0f} "
            f"| {median / base:>5.2f}x | {rounds:>6.1f} | {ready:>5.3f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
