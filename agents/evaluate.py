"""Evaluation harness: ``python -m agents.evaluate --agents expert,greedy,random``.

    python -m agents.evaluate --agents expert,greedy,random [--rules PRESET] [--players P]
        [--matches N] [--seed S] [--out DIR] [--pairs all|ladder] [--batch B]

Matches are played in the batched engine with **duplicate deals**: every deal (a match
seed) is played once per seat rotation, so each agent holds each seat of the same cards;
the engine deals the same cards in every round of a seed whatever was played, so luck
largely cancels.

* Two players: head-to-head between every pair of agents (``--pairs all``) or only
  neighbours in the order given (``--pairs ladder``), ``--matches`` per pair: match win
  rate (ties ½) with its Wilson 95% interval, mean match reward.
* More players: tables of P seats filled from the agents in turn (the list cycled when
  shorter than P), every deal played in all P rotations, ``--matches`` in all.
* Always: per agent first-place rate (Wilson 95%), mean match reward, mean points per
  round, exact-target resets per match; OpenSkill (Plackett–Luce) ratings over all
  matches; a progress bar; ``results.json``, ``pairs.csv``, ``agents.csv`` and
  ``winrates.png`` in ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

from sto_odno_env import rng
from sto_odno_env.rules import RulesError, load_rules

from .arena import Match, play
from .registry import AgentError, load
from .stats import agent_summary, head_to_head, openskill_ratings


def duplicate_schedule(tables: list[tuple[str, ...]], deals: int, seed: int) -> list[Match]:
    """Each table of agents, each deal, in every rotation of its seats."""
    seeds = rng.game_seeds(seed, deals)
    schedule = []
    for deal, match_seed in enumerate(seeds.tolist()):
        for table in tables:
            players = len(table)
            for shift in range(players):
                seats = table[shift:] + table[:shift]
                schedule.append(Match(int(match_seed), seats, deal))
    return schedule


def plan(names: list[str], players: int, matches: int, pairs: str, seed: int):
    """The schedule of an evaluation: (schedule, list of (agent, opponent) pairs)."""
    if players == 2:
        if pairs == "ladder":
            pairings = list(itertools.pairwise(names))
        else:
            pairings = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
        deals = max(1, -(-matches // 2))
        schedule = []
        for first, second in pairings:
            schedule += duplicate_schedule([(first, second)], deals, seed)
        return schedule, pairings
    table = tuple(names[i % len(names)] for i in range(players))
    deals = max(1, -(-matches // players))
    return duplicate_schedule([table], deals, seed), []


def plot_win_rates(rows: list[dict], summary: list[dict], path: Path, title: str) -> None:
    """Win rates (two players) or first-place rates (more) with their 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if rows:
        labels = [f"{r['agent']}\nvs {r['opponent']}" for r in rows]
        values = [r["win_rate"] for r in rows]
        low = [r["win_rate"] - r["ci_low"] for r in rows]
        high = [r["ci_high"] - r["win_rate"] for r in rows]
        ylabel, reference = "match win rate (ties ½)", 0.5
    else:
        labels = [r["agent"] for r in summary]
        values = [r["first_rate"] for r in summary]
        low = [r["first_rate"] - r["first_ci_low"] for r in summary]
        high = [r["first_ci_high"] - r["first_rate"] for r in summary]
        ylabel, reference = "first-place rate", None
    figure, axes = plt.subplots(figsize=(max(4.0, 1.4 * len(labels)), 3.6))
    errors = np.maximum([low, high], 0.0)  # rounding can leave -1e-17 at a rate of 0 or 1
    axes.bar(range(len(labels)), values, yerr=errors, capsize=6, color="#4c72b0")
    if reference is not None:
        axes.axhline(reference, color="grey", linestyle="--", linewidth=1)
    axes.set_xticks(range(len(labels)), labels)
    axes.set_ylim(0, 1)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        if not rows:
            return
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def evaluate(
    names: list[str],
    rules_spec: str,
    players: int,
    matches: int,
    seed: int,
    pairs: str = "all",
    batch: int = 1024,
    progress: bool = True,
) -> dict:
    """Run an evaluation and return its results (see the module docstring)."""
    rules = load_rules(rules_spec)
    rules.check_players(players)
    agents = {name: load(name, rules, players, seed=seed) for name in dict.fromkeys(names)}
    schedule, pairings = plan(list(agents), players, matches, pairs, seed)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(schedule), unit="match", file=sys.stderr)
    start = time.perf_counter()
    results = play(
        rules, players, agents, schedule, batch=batch, progress=bar.update if bar else None
    )
    elapsed = time.perf_counter() - start
    if bar:
        bar.close()
    rows = [head_to_head(results, a, b) for a, b in pairings]
    summary = agent_summary(results, list(agents))
    ratings = openskill_ratings(results, list(agents))
    for row in summary:
        row.update({f"openskill_{k}": v for k, v in ratings[row["agent"]].items()})
    return {
        "rules": rules.name,
        "rules_full": rules.to_dict(),
        "players": players,
        "seed": seed,
        "matches": len(results),
        "deals": len({(m.deal) for m in schedule}),
        "seconds": elapsed,
        "matches_per_second": len(results) / elapsed if elapsed else float("nan"),
        "truncated": sum(r.truncated for r in results),
        "mean_decisions": float(np.mean([r.decisions for r in results])),
        "head_to_head": rows,
        "agents": summary,
    }


def print_report(report: dict) -> None:
    print(
        f"\n{report['rules']} · {report['players']} players · {report['matches']} matches "
        f"({report['deals']} duplicate deals) · {report['seconds']:.1f} s "
        f"({report['matches_per_second']:.0f} matches/s) · truncated {report['truncated']}"
    )
    if report["head_to_head"]:
        print("\n| agent | opponent | matches | win rate | 95% CI | mean reward |")
        print("|---|---|---|---|---|---|")
        for r in report["head_to_head"]:
            print(
                f"| {r['agent']} | {r['opponent']} | {r['matches']} | {r['win_rate']:.3f} | "
                f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] | {r['mean_reward']:+.3f} |"
            )
    print(
        "\n| agent | matches | first | 95% CI | mean reward | 95% CI | pts/round | "
        "resets/match | OpenSkill μ ± σ |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in report["agents"]:
        print(
            f"| {r['agent']} | {r['matches']} | {r['first_rate']:.3f} | "
            f"[{r['first_ci_low']:.3f}, {r['first_ci_high']:.3f}] | {r['mean_reward']:+.3f} | "
            f"[{r['reward_ci_low']:+.3f}, {r['reward_ci_high']:+.3f}] | "
            f"{r['points_per_round']:.2f} | {r['resets_per_match']:.3f} | "
            f"{r['openskill_mu']:.2f} ± {r['openskill_sigma']:.2f} |"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Evaluate agents with duplicate deals.")
    parser.add_argument(
        "--agents",
        required=True,
        help="comma-separated: random, greedy, expert, rollout[:k=v,...], or checkpoint paths",
    )
    parser.add_argument("--rules", default="classic", help="preset name or YAML path")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument(
        "--matches",
        type=int,
        default=1000,
        help="matches per pair (2 players) or in all (more players)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="directory for json, csv and png")
    parser.add_argument(
        "--pairs",
        choices=("all", "ladder"),
        default="all",
        help="2 players: every pair, or neighbours in the given order",
    )
    parser.add_argument("--batch", type=int, default=1024, help="matches played side by side")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.agents.split(",") if name.strip()]
    if len(names) < 2:
        parser.error("--agents needs at least two agents")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        parser.error(
            f"--agents lists {', '.join(repeated)} more than once; give each agent "
            "once (a table of more players is filled from the list in turn)"
        )
    if args.matches < 1:
        parser.error(f"--matches must be >= 1, got {args.matches}")
    try:
        report = evaluate(
            names,
            args.rules,
            args.players,
            args.matches,
            args.seed,
            args.pairs,
            args.batch,
            progress=not args.no_progress,
        )
    except (AgentError, RulesError) as error:
        parser.error(str(error))
    print_report(report)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(report, indent=2, ensure_ascii=False))
        _write_csv(out / "pairs.csv", report["head_to_head"])
        _write_csv(out / "agents.csv", report["agents"])
        title = f"{report['rules']}, {report['players']} players, {report['matches']} matches"
        plot_win_rates(report["head_to_head"], report["agents"], out / "winrates.png", title)
        print(f"\nwrote {out / 'results.json'}, pairs.csv, agents.csv, winrates.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
