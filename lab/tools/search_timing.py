"""Time per decision of the search bots, one game at a time (the AEC case): one table.

``python lab/tools/search_timing.py [--agents rollout,search,search:samples=64]
[--against expert] [--players 2] [--matches 8] [--seed 0]``

Each agent sits in seat 0 of the PettingZoo AEC env against ``--against`` in every other
seat and is called on one observation per decision, as a user's loop calls it; only
its own decisions are timed. The agents play the same deals (``--seed``, ``--seed + 1``,
...), match by match in turn, so a busy machine slows them alike. Figures: mean, median,
95th percentile and maximum of the wall clock per decision, and the mean of the process's
CPU time per decision (steadier on a shared machine: it leaves out the time other
processes hold the core). One core: torch and the BLAS libraries get one thread.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np

from sto_odno_env.tools import cli


def play_match(env, agent, opponent, seed: int) -> tuple[list[float], list[float]]:
    """One match with ``agent`` in seat 0: the wall and CPU seconds of each of its decisions."""
    walls, cpus = [], []
    env.reset(seed=seed)
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        obs, mask = observation["observation"], observation["action_mask"].astype(bool)
        if name == "player_0":
            wall, cpu = time.perf_counter(), time.process_time()
            action = agent(obs, mask)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        else:
            action = opponent(obs, mask)
        env.step(int(action))
    return walls, cpus


def percentile(values: list[float], share: float) -> float:
    return float(np.percentile(np.asarray(values), share * 100))


def main(argv: list[str] | None = None) -> int:
    """The command line; Ctrl-C or SIGTERM stops it with one line and exit 130, after the
    table of the decisions timed so far (labelled partial)."""
    try:
        with cli.stopping():
            return _main(argv)
    except KeyboardInterrupt as stopped:  # loading torch and the agents
        return cli.stopped(stopped, "nothing timed yet")


def _main(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(
        prog="python lab/tools/search_timing.py",
        description=__doc__.split("\n\n")[0],
        formatter_class=cli.HelpFormatter,
    )
    parser.add_argument(
        "--agents",
        default="rollout,search,search:samples=64",
        help="comma-separated agents to time",
    )
    parser.add_argument("--against", default="expert", help="the other seats")
    cli.table_arguments(parser, players=2)
    cli.deal_arguments(parser, matches=8, per="per agent", seed="first deal's seed")
    args = parser.parse_args(argv)

    import torch

    from sto_odno_env.bots.registry import load, split_agent_names
    from sto_odno_env.envs.aec import env as make_env
    from sto_odno_env.tools.errors import StoOdnoError

    torch.set_num_threads(1)
    names = split_agent_names(args.agents)
    try:
        agents = {name: load(name, args.rules, args.players, seed=args.seed) for name in names}
        opponent = load(args.against, args.rules, args.players, seed=args.seed)
        env = make_env(rules=args.rules, players=args.players)
    except StoOdnoError as error:  # AgentError, RulesError
        print(f"error: {error}", file=sys.stderr)
        return 2
    walls: dict[str, list[float]] = {name: [] for name in names}
    cpus: dict[str, list[float]] = {name: [] for name in names}
    stop: KeyboardInterrupt | None = None
    print(f"timing {', '.join(names)}", file=sys.stderr, flush=True)
    try:
        with cli.stopping():
            for match in range(args.matches):
                for name, agent in agents.items():
                    wall, cpu = play_match(env, agent, opponent, args.seed + match)
                    walls[name] += wall
                    cpus[name] += cpu
    except KeyboardInterrupt as stopped:
        stop = stopped
    print(
        f"{args.rules}, {args.players} players against {args.against}, one game at a time, "
        f"{args.matches} matches per agent (seeds {args.seed}..{args.seed + args.matches - 1}), "
        f"load average {os.getloadavg()[0]:.1f} at the end"
    )
    print("| agent | decisions | mean ms | median ms | p95 ms | max ms | CPU mean ms |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        wall, cpu = walls[name], cpus[name]
        if not wall:
            print(f"| `{name}` | 0 | | | | | |")
            continue
        ms = [value * 1000 for value in wall]
        print(
            f"| `{name}` | {len(ms)} | {statistics.fmean(ms):.2f} | {statistics.median(ms):.2f} "
            f"| {percentile(ms, 0.95):.2f} | {max(ms):.2f} | "
            f"{statistics.fmean(cpu) * 1000:.2f} |"
        )
    if stop is not None:
        return cli.stopped(stop, "the table above holds the decisions timed before it (partial)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
