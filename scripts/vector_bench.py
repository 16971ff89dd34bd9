"""Vector env with a policy opponent, with and without ``ready_share``: one table.

``python scripts/vector_bench.py [--policy NAME] [--batch N] [--shares 0.7,0.9]
[--seconds S] [--repeats R]``

All modes (off, then each share) run in one process, interleaved step by step, so a
busy machine slows them alike; each repeat gives every mode about ``--seconds`` of
stepping, and a figure is the median over the repeats. Learner steps are the learner's
decisions applied (every game per step without the option, the games that were ready
with it); the rate is over the time spent in ``env.step`` by the wall clock, and by the
process's CPU clock (steadier on a shared machine: it leaves out the time other
processes hold the core). The learner plays random legal actions, chosen outside the
timed calls. 'engine calls' counts the engine calls per step (the learner's moves and
each round of opponent moves), 'ready' the share of the games at the learner's turn when
a step returns.
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


class Mode:
    """One vector env and its counters."""

    def __init__(self, opponent, batch: int, share: float | None, seed: int):
        from sto_odno_env.envs.gym_env import StoOdnoVectorEnv

        self.share = share
        self.env = StoOdnoVectorEnv(num_envs=batch, opponents=opponent, ready_share=share)
        games = self.env.games
        engine_step = games._engine_step
        self.calls = 0

        def counted(*args, **kwargs):  # one engine call per round
            self.calls += 1
            return engine_step(*args, **kwargs)

        games._engine_step = counted
        self.clear()
        _, self.infos = self.env.reset(seed=seed)
        self.ready = np.ones(batch, dtype=bool)
        self.generator = np.random.default_rng(seed)
        for _ in range(5):  # to the steady state of stragglers
            self.step()
        self.clear()

    def clear(self) -> None:
        self.steps = self.calls = self.count = 0
        self.wall = self.cpu = self.ready_sum = 0.0

    def step(self) -> None:
        masks = self.infos["action_mask"]
        actions = (self.generator.random(masks.shape) * masks).argmax(1)
        wall, cpu = time.perf_counter(), time.process_time()
        _, _, _, _, self.infos = self.env.step(actions)
        self.cpu += time.process_time() - cpu
        self.wall += time.perf_counter() - wall
        self.steps += int(np.count_nonzero(self.ready))  # the decisions this step applied
        self.ready = self.infos.get("ready", np.ones(len(actions), dtype=bool))
        self.ready_sum += float(self.ready.mean())
        self.count += 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python scripts/vector_bench.py",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--policy", default="ppo-classic", help="opponent (registry name)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--batch", type=int, default=8192)
    parser.add_argument("--shares", default="0.7,0.9", help="ready_share values, commas")
    parser.add_argument("--seconds", type=float, default=4.0, help="per mode and repeat")
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure (median)")
    args = parser.parse_args(argv)
    try:
        shares = [float(share) for share in args.shares.split(",") if share.strip()]
    except ValueError:
        parser.error(f"--shares {args.shares!r}: allowed: numbers in (0, 1], commas between")
    import torch

    from sto_odno_env.bots.registry import load as load_agent

    torch.set_num_threads(1)
    opponent = load_agent(args.policy, "classic", args.players)
    modes = [Mode(opponent, args.batch, share, seed=0) for share in [None, *shares]]
    results: list[list[tuple[float, float, float, float]]] = [[] for _ in modes]
    for _ in range(args.repeats):
        for mode in modes:
            mode.clear()
        while min(mode.wall for mode in modes) < args.seconds:
            for mode in modes:
                mode.step()
        for mode, rows in zip(modes, results, strict=True):
            rows.append(
                (
                    mode.steps / mode.wall,
                    mode.steps / mode.cpu,
                    mode.calls / mode.count,
                    mode.ready_sum / mode.count,
                )
            )
    print(
        f"vector env, {args.players} players, batch {args.batch}, {args.policy} opponent, "
        f"torch threads 1; modes interleaved step by step, medians of {args.repeats} "
        f"repeats x {args.seconds:g} s"
    )
    print(
        "| ready_share | learner steps/s (wall) | vs off | learner steps/s (CPU) | vs off "
        "| engine calls | ready |"
    )
    print("|---|---|---|---|---|---|---|")
    off = results[0]
    for mode, rows in zip(modes, results, strict=True):
        name = "off" if mode.share is None else f"{mode.share:g}"
        # Ratios per repeat (the modes of one repeat shared the machine), then the median.
        wall_ratio = statistics.median(r[0] / o[0] for r, o in zip(rows, off, strict=True))
        cpu_ratio = statistics.median(r[1] / o[1] for r, o in zip(rows, off, strict=True))
        print(
            f"| {name} | {statistics.median(r[0] for r in rows):,.0f} | {wall_ratio:.2f}x "
            f"| {statistics.median(r[1] for r in rows):,.0f} | {cpu_ratio:.2f}x "
            f"| {statistics.median(r[2] for r in rows):.1f} "
            f"| {statistics.median(r[3] for r in rows):.3f} |"
        )
    for mode in modes:
        mode.env.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
