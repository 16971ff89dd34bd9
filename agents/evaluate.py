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
* ``--against BOT``: each agent of ``--agents`` alone in one seat, ``BOT`` in the P-1 others
  (one table per agent, every deal in all P rotations, ``--matches`` per agent): the
  agent's first-place share (its win rate at 2 players) against a table of that bot.
* Always: per agent first-place rate (Wilson 95%), mean match reward, mean points per
  round, exact-target resets per match; OpenSkill (Plackett–Luce) ratings over all
  matches; a progress bar on a terminal (plain lines in a log or a pipe); ``results.json``,
  ``pairs.csv``, ``agents.csv`` and ``winrates.png`` in ``--out``.
* Ctrl-C or SIGTERM stops it with one line (how many matches were played), exit 130 and
  nothing written: no ``--out`` folder is left behind that was not there before.

It needs the ``eval`` extra (openskill for the ratings, tqdm for the bar, matplotlib for
``winrates.png``): a missing package is named, with the command that installs it, before
any agent is loaded or any match played (:func:`check_dependencies`), rather than after
the matches with nothing written.
"

This module holds the schedule of duplicate deals (:func:`duplicate_schedule`,
:func:`plan`), :func:`evaluate` and the command line (:func:`main`); the checks before a
run are in :mod:`agents.checks`, the progress lines in :mod:`agents.progress`, the
printed report in :mod:`agents.report` and the files of ``--out`` in :mod:`agents.outputs`.
"""

from __future__ import annotations

import contextlib
import itertools
import signal
import sys
import time
from pathlib import Path

import numpy as np

from agents.arena import Match, play
from agents.checks import EvaluationError, check_dependencies, check_matches
from agents.outputs import OUTPUT_FILES, plot_win_rates, write_outputs
from agents.progress import HEARTBEAT_S, Progress
from agents.report import (
    COLUMNS,
    COMPARISONS,
    FALLBACK_MARK,
    FALLBACK_NOTE,
    LABELS,
    comparable,
    compared_rows,
    comparison,
    print_report,
)
from agents.stats import agent_summary, head_to_head, openskill_ratings
from sto_odno_env.bots.registry import AgentError, load, split_agent_names
from sto_odno_env.game import rng
from sto_odno_env.game.rules import RulesError, load_rules
from sto_odno_env.tools import cli

# The names this module has always offered, each from its owner.
__all__ = [
    "COLUMNS",
    "COMPARISONS",
    "FALLBACK_MARK",
    "FALLBACK_NOTE",
    "HEARTBEAT_S",
    "LABELS",
    "OUTPUT_FILES",
    "PAIRS",
    "EvaluationError",
    "EvaluationStopped",
    "Progress",
    "check_dependencies",
    "check_matches",
    "comparable",
    "compared_rows",
    "comparison",
    "duplicate_schedule",
    "evaluate",
    "main",
    "plan",
    "plot_win_rates",
    "print_report",
    "write_outputs",
]


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


def plan(
    names: list[str],
    players: int,
    matches: int,
    pairs: str,
    seed: int,
    against: str | None = None,
):
    """The schedule of an evaluation: (schedule, list of (agent, opponent) pairs).

    With ``against``, each of ``names`` plays one seat of its own table and ``against`` the
    ``players - 1`` others, ``matches`` per name."""
    check_matches(matches, players)
    if against is not None:
        deals = matches // players
        tables = [(name, *([against] * (players - 1))) for name in names]
        schedule = duplicate_schedule(tables, deals, seed)
        return schedule, [(name, against) for name in names] if players == 2 else []
    if players == 2:
        if pairs == "ladder":
            pairings = list(itertools.pairwise(names))
        else:
            pairings = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
        deals = matches // 2
        schedule = []
        for first, second in pairings:
            schedule += duplicate_schedule([(first, second)], deals, seed)
        return schedule, pairings
    table = tuple(names[i % len(names)] for i in range(players))
    deals = matches // players
    return duplicate_schedule([table], deals, seed), []


PAIRS = ("all", "ladder")


class EvaluationStopped(cli.Stopped):
    """The evaluation was stopped (SIGINT or SIGTERM) after ``done`` of ``total`` matches."""

    def __init__(self, signum: int, done: int, total: int) -> None:
        super().__init__(signum)
        self.done, self.total = done, total


def evaluate(
    names: list[str],
    rules_spec: str,
    players: int,
    matches: int,
    seed: int,
    pairs: str = "all",
    batch: int = 1024,
    progress: bool = True,
    against: str | None = None,
) -> dict:
    """Run an evaluation and return its results (see the module docstring).

    ``progress`` shows a progress bar on stderr (for a terminal); without it a start line
    and a line every ``HEARTBEAT_S`` seconds still say that the run is alive. A stop
    (SIGINT, SIGTERM as :class:`~sto_odno_env.tools.cli.Stopped`) while the matches are
    played raises :class:`EvaluationStopped`, which says how many were done. Bad settings raise a
    ``ValueError`` (:class:`EvaluationError`, ``AgentError`` or ``RulesError``).
    """
    if against is not None and against in names:
        raise EvaluationError(
            f"against {against!r} is also in the agents; give the agents to measure "
            "against it, each once"
        )
    if len(names) + (against is not None) < 2:
        raise EvaluationError(f"give at least two agents, got {len(names)}")
    if pairs not in PAIRS:
        raise EvaluationError(f"pairs {pairs!r} is unknown; allowed: {', '.join(PAIRS)}")
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise EvaluationError(f"batch {batch!r} is not allowed; allowed: an integer >= 1")
    check_dependencies(progress=progress)
    rules = load_rules(rules_spec)
    rules.check_players(players)
    check_matches(matches, players)
    everyone = [*names, against] if against is not None else names
    agents = {name: load(name, rules, players, seed=seed) for name in dict.fromkeys(everyone)}
    schedule, pairings = plan(list(dict.fromkeys(names)), players, matches, pairs, seed, against)
    start_line = (
        f"playing {cli.plural(len(schedule), 'match', 'matches')} "
        f"({', '.join(agents)}; batch {batch})"
    )
    with Progress(len(schedule), progress, start_line) as shown:
        try:
            results = play(rules, players, agents, schedule, batch=batch, progress=shown.update)
        except KeyboardInterrupt as stop:
            signum = getattr(stop, "signum", signal.SIGINT)
            raise EvaluationStopped(signum, shown.done, len(schedule)) from None
    elapsed = time.perf_counter() - shown.start
    rows = [head_to_head(results, a, b) for a, b in pairings]
    summary = agent_summary(results, list(agents))
    ratings = openskill_ratings(results, list(agents))
    for row in summary:
        row.update({f"openskill_{k}": v for k, v in ratings[row["agent"]].items()})
    mode = comparison(players, against)
    for row in summary:  # seats at each table: more than one where the list was cycled
        row["seats"] = schedule[0].seats.count(row["agent"])
    return {
        "comparison": mode,
        "comparable": comparable(mode, players),
        "columns": COLUMNS,
        "rules": rules.name,
        "rules_full": rules.to_dict(),
        "players": players,
        "seed": seed,
        "matches": len(results),
        "deals": len({(m.deal) for m in schedule}),
        "seconds": elapsed,
        "matches_per_second": len(results) / elapsed if elapsed else float("nan"),
        "against": against,
        "truncated": sum(r.truncated for r in results),
        "mean_decisions": float(np.mean([r.decisions for r in results])),
        "head_to_head": rows,
        "agents": summary,
        # text agents (text:module:function): prompts, refused answers, fallbacks
        "text_answers": {
            name: agent.answer_stats()
            for name, agent in agents.items()
            if hasattr(agent, "answer_stats")
        },
    }


def main(argv: list[str] | None = None) -> int:
    """The command line (``python -m agents.evaluate --help``)."""
    from sto_odno_env.bots import registry
    from sto_odno_env.bots.names import agent_names

    known = agent_names()  # the names agents.load takes: bots, ppo-<rules>, shipped files

    files = "\n".join(f"  {name:<13} {what}" for name, what in OUTPUT_FILES.items())
    parser = cli.parser(
        "agents.evaluate",
        "Evaluate agents against each other with duplicate deals: every deal is played in\n"
        "every seat rotation, so each agent holds each hand of the same cards.",
        epilog=f"Files written to --out (each complete or absent):\n{files}",
    )
    rollout_keys = ",".join(f"{key}=..." for key in registry._ROLLOUT_PARAMS)
    parser.add_argument(
        "--agents",
        required=True,
        help=f"comma-separated, at least two: {', '.join(known)}, "
        f"rollout:{rollout_keys} (its search budget), or checkpoint paths (.pt, SB3 .zip)",
    )
    cli.table_arguments(parser, players=2)
    cli.deal_arguments(
        parser,
        matches=1000,
        per="per pair (2 players), per agent (--against) or in all (more players); a "
        "multiple of --players",
        seed="seed of the deals and the bots",
    )
    parser.add_argument(
        "--out", default=None, help="directory for the files listed below (created if missing)"
    )
    parser.add_argument(
        "--pairs",
        choices=PAIRS,
        default="all",
        help="2 players: every pair, or neighbours in the given order",
    )
    parser.add_argument(
        "--batch", type=cli.positive_int, default=1024, help="matches played side by side"
    )
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help=f"no progress bar on a terminal: a start line and a line every "
        f"{HEARTBEAT_S:.0f} s instead (what a log or a pipe always gets)",
    )
    parser.add_argument(
        "--against",
        default=None,
        metavar="AGENT",
        help="each agent of --agents alone against a table of this one (the other P-1 "
        "seats), --matches per agent: e.g. --agents ppo-classic --against expert --players 4",
    )
    args = parser.parse_args(argv)
    names = split_agent_names(args.agents)
    if args.against is not None:
        args.against = args.against.strip()
        if len(split_agent_names(args.against)) != 1:
            parser.error(f"--against takes one agent, got {args.against!r}")
        if args.against in names:
            parser.error(f"--against {args.against} is also in --agents; give it once")
        if not names:
            parser.error("--agents needs at least one agent with --against")
    elif len(names) < 2:
        parser.error(f"--agents needs at least two agents, got {args.agents!r}")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        parser.error(
            f"--agents lists {', '.join(repeated)} more than once; give each agent "
            "once (a table of more players is filled from the list in turn)"
        )
    bar = not args.no_progress and sys.stderr.isatty()  # a log or a pipe gets plain lines
    try:  # before anything is loaded, played or written
        check_dependencies(progress=bar, out=bool(args.out))
    except EvaluationError as error:
        parser.error(str(error))
    if args.out:
        problem = cli.output_problem(args.out, directory=True)
        if problem:
            parser.error(f"--out: {problem}")
    out = Path(args.out) if args.out else None
    report: dict | None = None
    try:
        with cli.stopping() as stop, contextlib.ExitStack() as folder:
            if out is not None:
                try:  # now, not after a long evaluation; removed again if nothing comes in
                    folder.enter_context(cli.output_directory(out))
                except OSError as error:
                    parser.error(f"--out: {cli.write_problem(out, error)}")
            try:
                report = evaluate(
                    names,
                    args.rules,
                    args.players,
                    args.matches,
                    args.seed,
                    args.pairs,
                    args.batch,
                    progress=bar,
                    against=args.against,
                )
            except (AgentError, RulesError, EvaluationError) as error:
                parser.error(str(error))
            with stop.held():  # the report and its files are whole, or not begun
                print_report(report)
                if out is not None:
                    try:
                        write_outputs(report, out)
                    except OSError as error:
                        parser.error(f"--out: {cli.write_problem(error.filename or out, error)}")
                    print(f"\nwrote {', '.join(str(out / name) for name in OUTPUT_FILES)}")
    except EvaluationStopped as stopped:
        return cli.stopped(
            stopped, f"{stopped.done} of {stopped.total} matches played; nothing written"
        )
    except KeyboardInterrupt as stopped:  # loading the agents, or after the report
        if report is not None:
            where = f" and in {out}" if out is not None else ""
            return cli.stopped(stopped, f"after the evaluation ended; its report is above{where}")
        return cli.stopped(stopped, "before any match was played; nothing written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
