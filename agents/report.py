"""What an evaluation reports and how it is read: what it compares (``COMPARISONS``), what
each field means (``COLUMNS``), the fields that compare like with like
(:func:`comparable`), and the report as markdown tables on stdout (:func:`print_report`),
text agents that mostly fell back marked."""

from __future__ import annotations

from sto_odno_env.tools import cli

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
