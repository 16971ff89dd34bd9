"""``python -m agents.exact``: exact values of a small rule set (docs/evaluation.md).

    python -m agents.exact size --rules micro
    python -m agents.exact evaluate expert --rules micro
    python -m agents.exact evaluate expert random --rules micro     # seat 0 expert, seat 1 random
    python -m agents.exact solve --iterations 1000 --out cfr.npz --curve cfr.csv
    python -m agents.exact efg --out micro.efg

A rule set whose tree is too large (every preset but ``micro``) is refused with its size;
every error is one line and exit 2.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

from sto_odno_env.bots.registry import AgentError, load
from sto_odno_env.bots.tabular import TabularPolicy
from sto_odno_env.game.rules import load_rules
from sto_odno_env.tools import cli
from sto_odno_env.tools.errors import StoOdnoError

from . import cfr
from .efg import write_efg
from .profiles import table_profile
from .tree import DEFAULT_MAX_NODES, build_tree
from .values import exploitability

PROG = "agents.exact"


def _parser() -> argparse.ArgumentParser:
    parser = cli.parser(PROG, __doc__.splitlines()[0].strip("`").split(": ", 1)[-1])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=cli.ArgumentParser)

    def command(name: str, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, formatter_class=cli.HelpFormatter)
        sub.add_argument("--rules", default="micro", help="preset name or YAML file path")
        sub.add_argument("--players", type=cli.positive_int, default=2, help="seats")
        sub.add_argument(
            "--max-nodes",
            type=cli.positive_int,
            default=DEFAULT_MAX_NODES,
            help="refuse a tree with more histories than this",
        )
        return sub

    command("size", "the tree's histories and information states")
    evaluate = command("evaluate", "an agent's values, best responses, NashConv")
    evaluate.add_argument(
        "agents", nargs="+", help="one agent for every seat, or one per seat (agents.load names)"
    )
    evaluate.add_argument("--json", default=None, help="also write the figures here")
    solve = command("solve", "CFR+ to a Nash equilibrium; write the average as a policy")
    solve.add_argument("--iterations", type=cli.positive_int, default=1000, help="CFR+ iterations")
    solve.add_argument(
        "--keys",
        choices=cfr.KEYS,
        default="observation",
        help="observation: what the kit's memoryless agents can play; infoset: perfect recall",
    )
    solve.add_argument(
        "--measure-every",
        type=cli.positive_int,
        default=50,
        help="iterations between NashConv measurements",
    )
    solve.add_argument("--out", default=None, help="the average strategy as a policy file (.npz)")
    solve.add_argument("--curve", default=None, help="the NashConv curve (CSV)")
    efg = command("efg", "the tree as Gambit EFG text (pyspiel.load_efg_game reads it)")
    efg.add_argument("--out", required=True, help="the .efg file")
    return parser


def _evaluate(tree, args) -> int:
    rules = tree.rules
    agents = [load(name, rules, args.players) for name in args.agents]
    result = exploitability(tree, table_profile(tree, agents))  # checks the agents' count
    names = args.agents * args.players if len(args.agents) == 1 else args.agents
    print(f"{'seat':<5} {'agent':<24} {'value':>9} {'best response':>14} {'gain':>9}")
    for seat in range(args.players):
        print(
            f"{seat:<5} {names[seat]:<24} {result.values[seat]:>9.6f} "
            f"{result.best_responses[seat]:>14.6f} {result.gains[seat]:>9.6f}"
        )
    print(f"NashConv {result.nash_conv:.6f}, exploitability {result.exploitability:.6f}")
    if args.json:
        figures = {
            "rules": rules.name,
            "players": args.players,
            "agents": names,
            "values": result.values,
            "best_responses": result.best_responses,
            "gains": result.gains,
            "nash_conv": result.nash_conv,
            "exploitability": result.exploitability,
        }
        with cli.atomic_open(args.json) as handle:
            json.dump(figures, handle, indent=2)
    return 0


def _solve(tree, args) -> int:
    def report(iteration: int, seconds: float, conv: float) -> None:
        print(f"iteration {iteration:>6}  {seconds:8.1f} s  NashConv {conv:.3e}", flush=True)

    result = cfr.solve(
        tree, args.iterations, keys=args.keys, measure_every=args.measure_every, on_measure=report
    )
    if args.curve:
        with cli.atomic_open(args.curve, newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["iteration", "seconds", "nash_conv"])
            writer.writerows(result.curve)
    if args.out:
        if args.keys != "observation":
            raise AgentError("--out writes a policy of observations; use --keys observation")
        iterations, _, conv = result.curve[-1]
        policy = TabularPolicy(tree.rules, tree.observations, result.average, name="cfr")
        meta = {"players": [args.players], "solver": "CFR+", "iterations": iterations}
        policy.save(args.out, {**meta, "nash_conv": conv})
        print(f"wrote {args.out}")
    return 0


@cli.quiet_broken_pipe
def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        for path in (
            getattr(args, "out", None),
            getattr(args, "curve", None),
            getattr(args, "json", None),
        ):
            if path:  # the folders of the files asked for, as the trainers make theirs
                Path(path).parent.mkdir(parents=True, exist_ok=True)
        rules = load_rules(args.rules)
        rules.check_players(args.players)
        started = time.perf_counter()
        tree = build_tree(rules, args.players, max_nodes=args.max_nodes)
        print(
            f"{rules.name} at {args.players} players: {tree.describe()} "
            f"(built in {time.perf_counter() - started:.1f} s)"
        )
        if args.command == "size":
            return 0
        if args.command == "evaluate":
            return _evaluate(tree, args)
        if args.command == "solve":
            return _solve(tree, args)
        write_efg(tree, args.out)
        print(f"wrote {args.out}")
        return 0
    except (StoOdnoError, OSError) as error:  # the kit's refusals; a bug keeps its traceback
        print(f"python -m {PROG}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        return cli.stopped(stop, "nothing was written", f"python -m {PROG}")


if __name__ == "__main__":
    sys.exit(main())
