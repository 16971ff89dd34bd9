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
"""

from __future__ import annotations

import contextlib
import csv
import importlib
import itertools
import json
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np

from agents.arena import Match, play
from agents.stats import agent_summary, head_to_head, openskill_ratings
from sto_odno_env.bots.registry import AgentError, load, split_agent_names
from sto_odno_env.game import rng
from sto_odno_env.game.rules import RulesError, load_rules
from sto_odno_env.tools import cli
from sto_odno_env.tools.cli import atomic_open
from sto_odno_env.tools.errors import StoOdnoError


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


class EvaluationError(StoOdnoError):
    """Evaluation settings that cannot be played as asked."""


def check_dependencies(progress: bool = True, out: bool = False, ratings: bool = True) -> None:
    """Raise :class:`EvaluationError` naming every optional package the evaluation would
    need and cannot import (all in the ``eval`` extra), with the command that installs them:
    openskill for the ratings, tqdm for the progress bar, matplotlib for the files of
    ``--out``. Called before any work, so that a missing package never costs a run."""
    needed = {}
    if ratings:
        needed["openskill"] = "the OpenSkill ratings"
    if progress:
        needed["tqdm"] = "the progress bar; --no-progress goes without"
    if out:
        needed["matplotlib"] = "winrates.png in --out"
    missing = []
    for module, purpose in needed.items():
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(f"{module} ({purpose})")
    if missing:
        raise EvaluationError(
            f"the evaluation needs {', '.join(missing)}, not installed; install the eval "
            f"extra: {cli.python_command()} -m pip install -e '.[eval]' (in a clone; a "
            "package install: pip install 'sto-odno-env[eval]')"
        )


def check_matches(matches: int, players: int) -> None:
    """Duplicate deals play every deal in all ``players`` seat rotations, so ``matches`` must
    be a positive multiple of ``players``; raise :class:`EvaluationError` naming the nearest
    allowed counts otherwise (never round silently)."""
    if matches < 1 or matches % players:
        below = max(players, matches // players * players)
        above = (matches // players + 1) * players
        choices = f"{below} or {above}" if below != above and matches > players else f"{players}"
        raise EvaluationError(
            f"matches {matches} is not a positive multiple of {players} (each deal is "
            f"played in all {players} seat rotations); allowed: e.g. {choices}"
        )


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
HEARTBEAT_S = 30.0  # seconds between "still playing" lines without a progress bar


class EvaluationStopped(cli.Stopped):
    """The evaluation was stopped (SIGINT or SIGTERM) after ``done`` of ``total`` matches."""

    def __init__(self, signum: int, done: int, total: int) -> None:
        super().__init__(signum)
        self.done, self.total = done, total


class Progress:
    """How far the matches are: a tqdm bar on a terminal (``bar``), else plain lines (a
    start line and one every ``every`` seconds), never ``\\r``-joined text in a log.

    The lines come from a daemon thread: a slow agent (``search``) can take minutes over
    one engine step of a batch, so a line per finished match would leave a log silent.
    Neither tqdm (which writes ``\\r`` updates to any file) nor rich (which draws nothing
    off a terminal until the end) prints periodic plain lines, so this thread stays; on a
    terminal it only refreshes the bar, so that its clock moves during a slow step.
    """

    def __init__(self, total: int, bar: bool, start_line: str, every: float = HEARTBEAT_S):
        self.total, self.done = total, 0
        self.every = 1.0 if bar else every
        self.start = time.perf_counter()
        self._bar = None
        if bar:
            from tqdm import tqdm

            self._bar = tqdm(total=total, unit="match", file=sys.stderr)
        else:
            self.say(start_line)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True)

    @staticmethod
    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    def update(self, count: int) -> None:
        self.done += count
        if self._bar is not None:
            self._bar.update(count)

    def _beat(self) -> None:
        while not self._stop.wait(self.every):
            if self._bar is not None:
                self._bar.refresh()
            else:
                elapsed = time.perf_counter() - self.start
                self.say(f"  {self.done}/{self.total} matches done, {elapsed:.0f} s")

    def __enter__(self) -> Progress:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()
        if self._bar is not None:
            self._bar.close()  # ends the bar's line, so that a stop's line starts afresh


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
    with atomic_open(path, "wb") as handle:
        figure.savefig(handle, format="png", dpi=120)
    plt.close(figure)


def _write_csv(path: Path, rows: list[dict]) -> None:
    with atomic_open(path, "w", newline="", encoding="utf-8") as handle:
        if not rows:
            return
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


COMPARISONS = {
    "head_to_head": "two players, pairs of agents on the same deals: compare two agents by "
    "their pair's win rate; each agent met other opponents, so the per-agent table holds only "
    "the rating, which puts every agent on one scale",
    "against": "each agent alone against the same table of one bot: every per-agent column "
    "compares the agents over the same opponents",
    "table": "every agent sits at every table of the same matches: the per-agent columns "
    "compare the agents over the same matches (per seat where an agent holds several)",
}

# What each field of the results means (results.json's "columns"; the printed footnotes).
COLUMNS = {
    "agent": "the agent measured",
    "opponent": "the agent it played against, on the same deals (each deal in both seats)",
    "matches": "matches of the row (per agent: seats held over all matches, so a match where "
    "it holds two seats counts twice)",
    "wins": "matches won",
    "losses": "matches lost",
    "ties": "matches tied",
    "win_rate": "matches won against that opponent, ties counted ½",
    "ci_low": "Wilson 95% interval of the win rate, low end",
    "ci_high": "Wilson 95% interval of the win rate, high end",
    "mean_reward": "mean match reward (+1 for the best place to −1 for the worst, ties "
    "shared; at two players +1 win, −1 loss)",
    "seats": "seats it holds at each table (more than one where --agents is shorter than "
    "--players)",
    "first_rate": "share of its seats that finished the match first",
    "first_ci_low": "Wilson 95% interval of the first-place share, low end",
    "first_ci_high": "Wilson 95% interval of the first-place share, high end",
    "reward_ci_low": "normal 95% interval of the mean reward, low end",
    "reward_ci_high": "normal 95% interval of the mean reward, high end",
    "points_per_round": "round points it scored per round it played (they count toward the "
    "target that puts a player out: fewer is better; below 0 where the rules take points "
    "off)",
    "resets_per_match": "exact-target resets (a total that hits the target exactly goes back "
    "to 0) per match, where the rules have them",
    "resets_per_round": "exact-target resets per round played",
    "openskill_mu": "OpenSkill (Plackett–Luce) rating μ fitted to every match's whole "
    "ranking, updated deal by deal; it puts agents that met different opponents on one "
    "scale, and can order them otherwise than their first places or a pair's win rate "
    "(second places count, and results need not be transitive)",
    "openskill_sigma": "uncertainty σ of the rating",
    "openskill_ordinal": "μ − 3σ, a cautious rating",
}


def comparison(players: int, against: str | None) -> str:
    """What the evaluation compares (a key of :data:`COMPARISONS`)."""
    if against is not None:
        return "against"
    return "head_to_head" if players == 2 else "table"


_RATING = ["openskill_mu", "openskill_sigma", "openskill_ordinal"]
_MEASURES = ["mean_reward", "reward_ci_low", "reward_ci_high", "points_per_round"]
_MEASURES += ["resets_per_match", "resets_per_round"]


def comparable(mode: str, players: int) -> list[str]:
    """The per-agent fields that compare the agents like with like in ``mode`` (the
    columns of the printed per-agent table and of agents.csv); the other fields of the
    per-agent rows are kept in results.json, explained by :data:`COLUMNS`."""
    if mode == "head_to_head":  # each agent met other opponents: the rating alone
        return ["agent", "matches", *_RATING]
    # At two players the first-place share is the pair table's win rate (ties ½) instead.
    first = [] if players == 2 else ["first_rate", "first_ci_low", "first_ci_high"]
    if mode == "against":
        return ["agent", "matches", *first, *_MEASURES]
    return ["agent", "seats", "matches", *first, *_MEASURES]


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


def _signed(value: float) -> str:
    """``+0.123``; a value that rounds to zero prints as ``+0.000``, never ``-0.000``."""
    text = f"{value:+.3f}"
    return "+0.000" if text == "-0.000" else text


def _rate(matches: int, seconds: float) -> str:
    """Matches per second, with the digits that a short run still has."""
    if seconds <= 0:
        return "too fast to time"
    rate = matches / seconds
    return f"{rate:,.0f} matches/s" if rate >= 100 else f"{rate:.3g} matches/s"


def _footnote(fields: list[str]) -> None:
    for field in fields:
        print(f"  {LABELS.get(field, field)}: {COLUMNS[field]}")


# The printed header of each field (the results file uses the field names).
LABELS = {
    "win_rate": "win rate",
    "mean_reward": "mean reward",
    "first_rate": "first",
    "points_per_round": "pts/round",
    "resets_per_match": "resets/match",
    "openskill_mu": "OpenSkill μ ± σ",
}


def print_report(report: dict) -> None:
    """The report as markdown tables on stdout: a pair table where two agents met, a
    per-agent table of the columns that compare like with like (the report's
    ``comparable``), and under each table what its columns mean."""
    print(
        f"\n{report['rules']} · {report['players']} players · "
        f"{cli.plural(report['matches'], 'match', 'matches')} "
        f"({cli.plural(report['deals'], 'duplicate deal')}) · {report['seconds']:.1f} s "
        f"({_rate(report['matches'], report['seconds'])}) · truncated {report['truncated']}"
    )
    mode = report.get("comparison", comparison(report["players"], report.get("against")))
    if report.get("against"):
        others = report["players"] - 1
        print(f"each agent alone against {others} × {report['against']}")
    print(f"compared: {COMPARISONS[mode]}")
    if report["head_to_head"]:
        print("\n| agent | opponent | matches | win rate | 95% CI | mean reward |")
        print("|---|---|---|---|---|---|")
        for r in report["head_to_head"]:
            agent, opponent = (_named(report, r[side]) for side in ("agent", "opponent"))
            print(
                f"| {agent} | {opponent} | {r['matches']} | {r['win_rate']:.3f} | "
                f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] | {_signed(r['mean_reward'])} |"
            )
        _footnote(["win_rate", "mean_reward"])
        print("  95% CI: Wilson 95% interval of the win rate")
    fields = report.get("comparable", comparable(mode, report["players"]))
    cells = {
        "seats": ("seats", lambda r: f"{r['seats']}"),
        "matches": ("matches", lambda r: f"{r['matches']}"),
        "first_rate": (
            "first | 95% CI",
            lambda r: (
                f"{r['first_rate']:.3f} | [{r['first_ci_low']:.3f}, {r['first_ci_high']:.3f}]"
            ),
        ),
        "mean_reward": (
            "mean reward | 95% CI",
            lambda r: (
                f"{_signed(r['mean_reward'])} | [{_signed(r['reward_ci_low'])}, "
                f"{_signed(r['reward_ci_high'])}]"
            ),
        ),
        "points_per_round": ("pts/round", lambda r: f"{r['points_per_round']:.2f}"),
        "resets_per_match": ("resets/match", lambda r: f"{r['resets_per_match']:.3f}"),
        "openskill_mu": (
            "OpenSkill μ ± σ",
            lambda r: f"{r['openskill_mu']:.2f} ± {r['openskill_sigma']:.2f}",
        ),
    }
    shown = [field for field in cells if field in fields]
    header = " | ".join(["agent", *(cells[field][0] for field in shown)])
    print(f"\n| {header} |")
    print("|---" * (header.count("|") + 1) + "|")
    for r in compared_rows(report):
        row = [_named(report, r["agent"]), *(cells[field][1](r) for field in shown)]
        print(f"| {' | '.join(row)} |")
    _footnote(shown)
    intervals = [
        what
        for field, what in (("first_rate", "Wilson for the first-place share"),
                            ("mean_reward", "normal for the mean reward"))
        if field in shown
    ]  # fmt: skip
    if intervals:
        print(f"  95% CI: {', '.join(intervals)}")
    if report.get("against"):
        print(f"  ({report['against']}'s own seats are left out: they met other opponents)")
    if any(_mostly_fallbacks(report, row["agent"]) for row in report["agents"]):
        print(f"  {FALLBACK_MARK}: {FALLBACK_NOTE}")
    for name, stats in report.get("text_answers", {}).items():  # text:module:function agents
        print(
            f"\ntext agent {name}: {stats['prompts']} prompts for {stats['decisions']} "
            f"decisions; {stats['refused']} answers refused (not a legal move), "
            f"{stats['fallbacks']} decisions given the first legal move after the last refusal"
        )


# A text agent whose answers were mostly refused played mostly the fallback (the first
# legal move): its numbers measure that move, not the agent, so its rows say so.
FALLBACK_MARK = "mostly fallbacks"
FALLBACK_NOTE = (
    "more than half of this text agent's decisions were refused answers replaced by the "
    "first legal move; its numbers measure that move, not the agent"
)


def _mostly_fallbacks(report: dict, agent: str) -> bool:
    """Whether more than half of ``agent``'s decisions were fallbacks (text agents only)."""
    stats = report.get("text_answers", {}).get(agent)
    return bool(stats) and 2 * stats["fallbacks"] > stats["decisions"]


def _named(report: dict, agent: str) -> str:
    """An agent's name in a table row, marked when its decisions were mostly fallbacks."""
    if not _mostly_fallbacks(report, agent):
        return agent
    stats = report["text_answers"][agent]
    return f"{agent} ⚠ {FALLBACK_MARK} ({stats['fallbacks']} of {stats['decisions']} decisions)"


def compared_rows(report: dict) -> list[dict]:
    """The per-agent rows that the per-agent table compares: with ``against``, the agents
    measured (the bot's seats met those agents, not the same opponents)."""
    return [row for row in report["agents"] if row["agent"] != report.get("against")]


OUTPUT_FILES = {
    "results.json": "the whole report (settings, head-to-head rows, per-agent rows, what "
    "each column means and which compare like with like)",
    "pairs.csv": "head-to-head rows (2 players; empty otherwise)",
    "agents.csv": "per-agent rows: the columns that compare the agents like with like",
    "winrates.png": "win rates (2 players) or first-place rates, with 95% intervals",
}


def write_outputs(report: dict, out: Path) -> None:
    """The files of :data:`OUTPUT_FILES` in ``out``, each complete or absent (and none
    written when matplotlib, which draws ``winrates.png``, is missing)."""
    check_dependencies(progress=False, out=True, ratings=False)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_open(out / "results.json", "w", encoding="utf-8") as handle:
        handle.write(json.dumps(report, indent=2, ensure_ascii=False))
    _write_csv(out / "pairs.csv", report["head_to_head"])
    rows = compared_rows(report)
    fields = report.get("comparable") or (list(rows[0]) if rows else [])
    _write_csv(out / "agents.csv", [{key: row[key] for key in fields} for row in rows])
    title = f"{report['rules']}, {report['players']} players, {report['matches']} matches"
    plot_win_rates(report["head_to_head"], rows, out / "winrates.png", title)


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
