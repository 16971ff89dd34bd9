"""The standing strength table of every shipped policy: measure it, store it, render it.

    python lab/tools/strength.py measure [--policies a,b] [--players 2,4] [--against expert,random]
        [--matches 10000] [--seed 0] [--json PATH]
    python lab/tools/strength.py render [--check] [--json PATH] [--readme PATH] [--table PATH]

``measure`` plays, for each shipped policy (:func:`sto_odno_env.bots.catalog.policy_cards`,
all by default), each player count its policy file claims (or the ``--players`` subset) and
each bot of ``--against``, one seat of the policy against ``P - 1`` copies of the bot on
duplicate deals, with the rules preset the policy was trained for. It runs
:func:`agents.evaluate.evaluate` with exactly the settings of the row's ``command``, so
running that command (``python -m agents.evaluate --agents POLICY --against BOT --players P
--matches N --seed S``, plus ``--rules PRESET`` off the classic rules) prints the same
figures. ``--matches`` is rounded down to a multiple of ``P`` (each deal is played in all
``P`` seat rotations: 9,999 at 3 players, 9,996 at 6), and the row records the count played.

A row: policy, rules preset, players, against, matches, seed, rate (2 players: win rate with
ties ½; more: first-place share) with its Wilson 95% interval, par (½ or ``1/P``), mean
match reward with its 95% interval, seconds, command. Rows are merged into
``lab/strength/strength.json`` by (policy, players, against): a re-measured row replaces
the old one, the others stay. The file is rewritten after each row (a temporary file
renamed into place), so Ctrl-C or SIGTERM keeps the rows finished so far, never half a file,
and exits 130 without a traceback.

``render`` writes the whole table, grouped by rule set and player count with the
recommended policy first in each group, into ``lab/strength/README.md``, and the "Which
policy" table (one row per rule set and run of player counts served by one file, from
``sto_odno_env/bots/policies/index.yaml`` and the rows against ``expert``) between
``<!-- begin generated: which-policy -->`` and ``<!-- end generated: which-policy -->`` in
README.md; ``--check`` writes nothing and exits 1 when either differs from the JSON.

Rows measured before this script have ``seconds: null`` and a ``note``; their commands are
the ones they were measured with. Rows of archived policies (no longer shipped) load them
by path from ``lab/policies/``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(REPO))

from sto_odno_env.tools import docblocks  # noqa: E402
from sto_odno_env.tools.errors import StoOdnoError  # noqa: E402

STRENGTH_JSON = REPO / "lab" / "strength" / "strength.json"
README = REPO / "README.md"
TABLE_DOC = REPO / "lab" / "strength" / "README.md"
FORMAT = "sto-odno-strength"
VERSION = 1
DEFAULT_RULES = "classic"  # agents.evaluate's --rules default: left out of the commands
DEFAULT_AGAINST = "expert,random"
EXIT_USAGE = 2
BEGIN, END = docblocks.markers("which-policy")
KEY = ("policy", "players", "against")
NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five"}


class StrengthError(StoOdnoError):
    """Settings or files that the strength table cannot be measured or rendered from."""


# --- what a policy claims ----------------------------------------------------------------


def claims(name: str, path: Path) -> tuple[str, list[int]]:
    """The rules preset and the player counts that the policy file at ``path`` claims."""
    from sto_odno_env.bots.checkpoint import CheckpointError, check_fits, read
    from sto_odno_env.bots.tabular import TabularPolicyError, load_tabular, read_header
    from sto_odno_env.game.rules import RulesError, load_rules

    if path.suffix == ".npz":  # a table solved exactly (cfr-micro): its header says
        try:
            header = read_header(path)
            load_tabular(path, header["rules"]["name"])
        except (TabularPolicyError, RulesError, KeyError, OSError) as error:
            raise StrengthError(f"policy {name!r}: {error}") from None
        return str(header["rules"]["name"]), sorted(int(c) for c in header["players"])
    try:
        data = read(path)
        rules = data.get("rules") or {}
        players = data.get("players")
        if not isinstance(rules, dict) or not rules.get("name") or not players:
            raise StrengthError(
                f"policy {name!r} ({path}) does not say its rules preset and player counts "
                "(a version 1 policy file); ship it again with train/ship.py"
            )
        # The command names the preset: the policy must have been trained for it as it is.
        check_fits(data, path, load_rules(rules["name"]), None)
    except (CheckpointError, RulesError) as error:
        raise StrengthError(f"policy {name!r}: {error}") from None
    return str(rules["name"]), sorted(int(count) for count in players)


def command(policy: str, rules: str, players: int, against: str, matches: int, seed: int) -> str:
    """The ``agents.evaluate`` command line that measures one row."""
    parts = ["python", "-m", "agents.evaluate", "--agents", policy, "--against", against]
    if rules != DEFAULT_RULES:
        parts += ["--rules", rules]
    parts += ["--players", str(players), "--matches", str(matches), "--seed", str(seed)]
    return shlex.join(parts)


# --- measuring ---------------------------------------------------------------------------


def _names(text: str) -> list[str]:
    return list(dict.fromkeys(item.strip() for item in text.split(",") if item.strip()))


def _chosen(text: str, option: str, allowed: Iterable[str], unknown: str) -> list[str]:
    """The comma-separated names of ``text`` (the value of ``option``), each one of
    ``allowed``; a :class:`StrengthError` when there is none, or ``unknown`` (its ``{}`` the
    names not allowed) followed by the allowed names."""
    allowed = list(allowed)
    names = _names(text)
    if not names:
        raise StrengthError(f"{option} is empty; allowed: {', '.join(allowed)}")
    strange = [name for name in names if name not in allowed]
    if strange:
        raise StrengthError(
            f"{unknown.format(', '.join(map(repr, strange)))}: {', '.join(allowed)}"
        )
    return names


def plan(
    policies: str | None, players: str | None, against: str, matches: int
) -> list[tuple[str, str, int, str, int]]:
    """The rows to measure: (policy, rules, players, against, matches), every setting
    checked before anything is played; a :class:`StrengthError` names what is allowed."""
    from sto_odno_env.bots.registry import BOTS, shipped_policies

    shipped = shipped_policies()
    names = list(shipped)
    if policies is not None:
        names = _chosen(
            policies, "--policies", shipped, "unknown policy {}; allowed (the shipped policies)"
        )
    bots = _chosen(against, "--against", BOTS, "unknown bot {} in --against; allowed")
    counts = None
    if players is not None:
        counts = []
        for item in _names(players):
            if not item.isdigit():
                raise StrengthError(
                    f"--players {players!r}: {item!r} is not a player count; allowed: "
                    "comma-separated integers, e.g. 2,4"
                )
            counts.append(int(item))
        if not counts:
            raise StrengthError("--players is empty; allowed: comma-separated integers, e.g. 2,4")
    rows = []
    for name in names:
        rules, claimed = claims(name, shipped[name])
        chosen = claimed if counts is None else counts
        refused = [count for count in chosen if count not in claimed]
        if refused:
            raise StrengthError(
                f"policy {name!r} does not claim {'/'.join(map(str, refused))} players; "
                f"allowed for it: {', '.join(map(str, claimed))}"
            )
        for count in chosen:
            played = matches // count * count
            if played < count:
                raise StrengthError(
                    f"--matches {matches} is fewer than one deal at {count} players (each "
                    f"deal is played in all {count} seat rotations); allowed: at least {count}"
                )
            rows.extend((name, rules, count, bot, played) for bot in bots)
    return rows


def measure_row(
    policy: str,
    rules: str,
    players: int,
    against: str,
    matches: int,
    seed: int,
    progress: bool = False,
) -> dict[str, Any]:
    """One row, measured by :func:`agents.evaluate.evaluate` with the settings of its
    command (the same call ``python -m agents.evaluate`` makes)."""
    from agents.evaluate import evaluate

    start = time.perf_counter()
    report = evaluate([policy], rules, players, matches, seed, progress=progress, against=against)
    seconds = time.perf_counter() - start
    mine = next(row for row in report["agents"] if row["agent"] == policy)
    if players == 2:  # the win rate, ties counted ½ (first place leaves ties out)
        duel = report["head_to_head"][0]
        rate, low, high = duel["win_rate"], duel["ci_low"], duel["ci_high"]
    else:
        rate, low, high = mine["first_rate"], mine["first_ci_low"], mine["first_ci_high"]
    return {
        "policy": policy,
        "rules": report["rules"],
        "players": players,
        "against": against,
        "matches": report["matches"],
        "seed": seed,
        "rate": rate,
        "ci_low": low,
        "ci_high": high,
        "par": 1 / players,
        "mean_reward": mine["mean_reward"],
        "reward_ci_low": mine["reward_ci_low"],
        "reward_ci_high": mine["reward_ci_high"],
        "seconds": round(seconds, 1),
        "command": command(policy, rules, players, against, matches, seed),
    }


# --- the JSON file -----------------------------------------------------------------------


def sort_key(row: dict[str, Any]) -> tuple:
    """By policy, then players, then bot."""
    return (row["policy"], row["players"], row["against"])


def read_table(path: Path) -> list[dict[str, Any]]:
    """The rows of a strength file (none when it does not exist)."""
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise StrengthError(f"cannot read {str(path)!r}: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise StrengthError(f"{str(path)!r} is not a strength file (format {FORMAT!r})")
    rows = data.get("rows")
    if not isinstance(rows, list) or not all(
        isinstance(row, dict) and all(key in row for key in KEY) for row in rows
    ):
        raise StrengthError(f"{str(path)!r}: rows must be a list of objects with {KEY}")
    return rows


def merge(rows: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with each of ``new`` replacing the row of its (policy, players, against)."""
    merged = {tuple(row[key] for key in KEY): row for row in rows}
    merged.update({tuple(row[key] for key in KEY): row for row in new})
    return sorted(merged.values(), key=sort_key)


def write_table(path: Path, rows: list[dict[str, Any]]) -> None:
    """Write the strength file atomically (a temporary file beside it, renamed)."""
    from sto_odno_env.tools.cli import atomic_open

    data = {
        "format": FORMAT,
        "version": VERSION,
        "about": "one seat of each shipped policy against P-1 copies of a bot on duplicate "
        "deals (agents.evaluate --against); rate: win rate with ties 1/2 at 2 players, "
        "first-place share at more; written by lab/tools/strength.py measure",
        "rows": sorted(rows, key=sort_key),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


# --- rendering ---------------------------------------------------------------------------


def against_words(bot: str, players: int) -> str:
    """``expert`` at 2 players, ``three experts`` at 4, ``five searches`` at 6."""
    others = players - 1
    if others == 1:
        return bot
    plural = bot + ("es" if bot.endswith(("s", "sh", "ch", "x")) else "s")
    return f"{NUMBERS.get(others, str(others))} {plural}"


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _signed(value: float) -> str:
    text = f"{value:+.3f}"
    return ("+0.000" if text == "-0.000" else text).replace("-", "−")


def _reward(row: dict[str, Any]) -> str:
    mean, low, high = (row.get(k) for k in ("mean_reward", "reward_ci_low", "reward_ci_high"))
    if mean is None:
        return "—"
    if low is None or high is None:
        return _signed(mean)
    return f"{_signed(mean)} [{_signed(low)}, {_signed(high)}]"


PAR = (
    "*par* is what a seat of equal strength takes: a win rate of 0.500 heads-up, a first-place "
    "share of 1/P at P players"
)


def _ci(row: dict[str, Any]) -> str:
    return "—" if row.get("ci_low") is None else f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]"


def _group_order(rows: list[dict[str, Any]], rules: str, players: int) -> list[dict[str, Any]]:
    """A group's rows: the recommended policy's first, then by bot, then by rate."""
    from sto_odno_env.bots.catalog import recommended

    best = recommended(rules, players)
    return sorted(
        rows,
        key=lambda row: (row["policy"] != best, row["against"], -(row.get("rate") or 0)),
    )


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """The whole strength table: a section per rule set, a table per player count, the
    recommended policy first; notes under the table they belong to."""
    from sto_odno_env.bots.catalog import policy_cards, recommended
    from sto_odno_env.bots.registry import BOTS

    shipped = policy_cards()
    out = [
        "# Strength of the trained policies",
        "",
        "One seat of each policy against a table of the bot in the other P−1 seats, on "
        "duplicate deals (every deal played in every seat rotation). *rate* is the win rate "
        "with ties counted ½ heads-up and the first-place share at more players, with its "
        f"Wilson 95% interval; {PAR}. *mean match reward* is the seat's match reward "
        "(+1 first … −1 last) with its 95% interval. Each row's command reproduces it; a "
        "policy marked *archived* is no longer shipped and loads by path from "
        "[lab/policies](../policies/). Generated by `python lab/tools/strength.py render` "
        "from [strength.json](strength.json); the recommended policy of each table "
        "(what `ppo-<rules>` loads) comes first, marked **recommended**.",
    ]
    for rules in dict.fromkeys(row["rules"] for row in sorted(rows, key=_rules_order)):
        out += ["", f"## {rules}"]
        counts = sorted({row["players"] for row in rows if row["rules"] == rules})
        for players in counts:
            group = [row for row in rows if row["rules"] == rules and row["players"] == players]
            best = recommended(rules, players)
            out += [
                "",
                f"### {players} players (par {1 / players:.3f})",
                "",
                "| policy | against | rate | 95% CI | mean match reward [95% CI] | matches "
                "| command |",
                "|---|---|---|---|---|---|---|",
            ]
            notes = []
            for row in _group_order(group, rules, players):
                name = f"`{row['policy']}`"
                if row["policy"] == best:
                    name += " **recommended**"
                elif row["policy"].partition(":")[0] in BOTS:
                    name += " (bot)"
                elif row["policy"] not in shipped:
                    name += " (archived)"
                if row.get("note"):
                    notes.append(row["note"])
                    name += f" [{len(notes)}]"
                out.append(
                    f"| {name} | {against_words(row['against'], players)} | "
                    f"{_rate(row.get('rate'))} | {_ci(row)} | {_reward(row)} | "
                    f"{row['matches']:,} | `{row['command']}` |"
                )
            out += ["", *(f"[{i}] {note}." for i, note in enumerate(notes, 1))] if notes else []
    return "\n".join(out).rstrip() + "\n"


def _rules_order(row: dict[str, Any]) -> tuple:
    from sto_odno_env.game.rules import PRESETS

    order = list(PRESETS)
    return (order.index(row["rules"]) if row["rules"] in order else len(order), row["rules"])


def _spans(choices: dict[int, str]) -> list[tuple[list[int], str]]:
    """Runs of consecutive player counts served by the same file."""
    spans: list[tuple[list[int], str]] = []
    for players, name in sorted(choices.items()):
        if spans and spans[-1][1] == name and spans[-1][0][-1] == players - 1:
            spans[-1][0].append(players)
        else:
            spans.append(([players], name))
    return spans


def _figure(players: int, row: dict[str, Any] | None) -> str:
    """``4p 0.353 / 0.250``: a count's rate against experts beside its par."""
    rate = "not measured" if row is None else _rate(row.get("rate"))
    return f"{players}p {rate} / {1 / players:.3f}"


def which_policy_table(rows: list[dict[str, Any]]) -> str:
    """The README's table: per rule set and run of counts, the name to load, the file it
    plays, and what it takes against tables of ``expert``; then the ``search`` bot where
    rows measure it."""
    from sto_odno_env.bots.catalog import count_span, index, rule_set_alias

    versus = {(row["policy"], row["players"]): row for row in rows if row["against"] == "expert"}
    lines = [
        "| rule set | players | load | plays the file | against `expert` (rate / par) |",
        "|---|---|---|---|---|",
    ]
    for rules, choices in index().recommended.items():
        for counts, name in _spans(choices):
            figures = "; ".join(_figure(players, versus.get((name, players))) for players in counts)
            lines.append(
                f"| {rules} | {count_span(counts)} | `{rule_set_alias(rules)}` | `{name}` | "
                f"{figures} |"
            )
        searched = sorted(
            (
                row
                for row in rows
                if (row["policy"], row["rules"], row["against"]) == ("search", rules, "expert")
            ),
            key=lambda row: row["players"],
        )
        if searched:
            counts = [row["players"] for row in searched]
            timed = [row for row in searched if row.get("ms_per_decision")]
            time = (
                f"{timed[0]['ms_per_decision']:g} ms a decision at {timed[0]['players']}p"
                if timed
                else "time not measured"
            )
            figures = "; ".join(_figure(row["players"], row) for row in searched)
            lines.append(
                f"| {rules} | {count_span(counts)} | `search` | a search bot rolling out the "
                f"{rules} policies ({time}) | {figures} |"
            )
    return "\n".join(lines) + "\n"


def render(text: str, rows: list[dict[str, Any]], doc: Path) -> str:
    """``text`` (the file ``doc``) with its generated which-policy block rewritten."""
    return docblocks.replace_block(text, "which-policy", which_policy_table(rows), str(doc))


# --- the command line --------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    from sto_odno_env.tools import cli

    parser = cli.ArgumentParser(
        prog="python lab/tools/strength.py",
        description="The standing strength table of every shipped policy: measure rows "
        "into lab/strength/strength.json, render it into lab/strength/README.md and the "
        "README's which-policy table.",
        formatter_class=cli.HelpFormatter,
    )
    commands = parser.add_subparsers(dest="action", required=True, metavar="{measure,render}")
    measure = commands.add_parser(
        "measure",
        help="measure rows and merge them into the JSON",
        description="One seat of each policy against P-1 copies of each bot, duplicate "
        "deals (agents.evaluate --against), at each count the policy claims.",
        formatter_class=cli.HelpFormatter,
    )
    measure.add_argument(
        "--policies", default=None, help="comma-separated shipped policies (default: all)"
    )
    measure.add_argument(
        "--players",
        default=None,
        help="comma-separated counts, each claimed by every policy (default: each "
        "policy's own counts)",
    )
    measure.add_argument(
        "--against", default=DEFAULT_AGAINST, help="comma-separated bots for the other seats"
    )
    cli.deal_arguments(
        measure,
        matches=10_000,
        per="per row, rounded down to a multiple of the players",
        seed="seed of the deals and the bots",
    )
    render_ = commands.add_parser(
        "render",
        help="write the table into lab/strength/README.md and README.md's which-policy table",
        description=f"Rewrite lab/strength/README.md and README.md's {BEGIN} block.",
        formatter_class=cli.HelpFormatter,
    )
    render_.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a block differs"
    )
    render_.add_argument("--readme", type=Path, default=README, help="the README to render into")
    render_.add_argument(
        "--table", type=Path, default=TABLE_DOC, help="the full table's page, written whole"
    )
    for sub in (measure, render_):
        sub.add_argument("--json", type=Path, default=STRENGTH_JSON, help="the strength file")
    return parser


def _measure(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from sto_odno_env.tools import cli

    try:
        rows = plan(args.policies, args.players, args.against, args.matches)
        stored = read_table(args.json)
    except StrengthError as error:
        parser.error(str(error))
    problem = cli.output_problem(args.json.parent, directory=True) or (
        cli.output_problem(args.json) if args.json.parent.is_dir() else None
    )
    if problem:
        parser.error(f"--json: {problem}")
    progress = sys.stderr.isatty()
    done = 0
    try:
        with cli.stopping() as stop:
            for policy, rules, players, bot, matches in rows:
                print(
                    f"[{done + 1}/{len(rows)}] {policy} ({rules}) at {players} players vs "
                    f"{against_words(bot, players)}: {matches:,} matches",
                    file=sys.stderr,
                    flush=True,
                )
                row = measure_row(policy, rules, players, bot, matches, args.seed, progress)
                with stop.held():  # a row measured is kept, whole
                    stored = merge(stored, [row])
                    write_table(args.json, stored)
                    done += 1
                print(
                    f"  {_rate(row['rate'])} [{row['ci_low']:.3f}, {row['ci_high']:.3f}] "
                    f"(par {row['par']:.3f}), mean reward {_reward(row)}, "
                    f"{row['seconds']:.1f} s",
                    flush=True,
                )
    except KeyboardInterrupt as stopped:
        return cli.stopped(stopped, f"{done} of {len(rows)} rows measured and kept in {args.json}")
    except (StoOdnoError, OSError) as error:  # AgentError, RulesError, EvaluationError
        parser.error(str(error))
    print(f"wrote {len(rows)} rows to {args.json}; render: python lab/tools/strength.py render")
    return 0


def _render(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        rows = read_table(args.json)
        if not rows:
            raise StrengthError(f"{args.json} has no rows; measure some first")
        docs = {
            args.readme: args.readme.read_text(encoding="utf-8"),
            args.table: args.table.read_text(encoding="utf-8") if args.table.exists() else "",
        }
        rendered = {
            args.readme: render(docs[args.readme], rows, args.readme),
            args.table: markdown_table(rows),
        }
    except (StrengthError, docblocks.BlockError, OSError) as error:
        parser.error(str(error))
    stale = [doc for doc in docs if rendered[doc] != docs[doc]]
    if args.check:
        if stale:
            print(
                f"the strength table in {' and '.join(map(str, stale))} differs from "
                f"{args.json}: run python lab/tools/strength.py render",
                file=sys.stderr,
            )
            return 1
        return 0
    from sto_odno_env.tools import cli

    rewritten = []
    try:
        with cli.stopping():
            for doc in stale:
                with cli.atomic_open(doc, "w", encoding="utf-8") as handle:
                    handle.write(rendered[doc])
                rewritten.append(str(doc))
    except KeyboardInterrupt as stopped:
        return cli.stopped(stopped, f"rewrote {', '.join(rewritten) or 'nothing'}")
    print(f"rendered {len(rows)} rows; rewrote {', '.join(map(str, stale)) or 'nothing'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command line (``python lab/tools/strength.py --help``)."""
    from sto_odno_env.tools import cli

    parser = _parser()
    args = parser.parse_args(argv)
    # The subcommand's parser, so that an error names it (one line on stderr, exit 2).
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    try:
        with cli.stopping():  # loading the modules, before each command's own
            return (_measure if args.action == "measure" else _render)(
                args, sub.choices[args.action]
            )
    except KeyboardInterrupt as stopped:
        return cli.stopped(stopped, "before any work; nothing written")


if __name__ == "__main__":
    sys.exit(main())
