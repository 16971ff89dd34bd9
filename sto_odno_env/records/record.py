"""Writing game records (docs/rules.md §10), and a CLI that records random matches.

    python -m sto_odno_env.record --rules PRESET_OR_YAML [--set key=value ...] \\
        --players P --matches N --seed S --out FILE.jsonl

plays N matches with uniformly random legal actions and writes their records; ``--set``
takes dotted paths into the rule-set schema (``stacking=true``, ``effects.Q.wild=false``,
``finish_bonus.K♠.points=-50``), values parsed as YAML. Check a file with
``python -m sto_odno_env.replay FILE.jsonl``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ..game import engine, rng
from ..game.rule_paths import set_path
from ..game.rules import PRESETS, Rules, RulesError, load_rules
from ..tools import cli
from ..tools.cli import atomic_open
from .replay import UNFINISHED

CHUNK = 1024  # matches played side by side


def rules_with_overrides(spec: str | Rules, overrides: Sequence[str] = ()) -> Rules:
    """A rule set from a preset or YAML path with ``key.path=value`` overrides applied."""
    rules = load_rules(spec)
    if not overrides:
        return rules
    data = rules.to_dict()
    for item in overrides:
        if "=" not in item:
            raise RulesError(f"--set {item!r}: expected key.path=value")
        path, text = item.split("=", 1)
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError as error:
            raise RulesError(f"--set {item!r}: value is not YAML ({error})") from None
        set_path(data, path.strip(), value)
    return Rules.from_dict(data)


def random_actions(state: engine.State, generator: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per game (0 where the match is over)."""
    return engine.sample_actions(state.legal_bits, generator.random(state.batch))


def play_random_matches(
    rules: Rules, players: int, matches: int, seed: int
) -> list[list[dict[str, Any]]]:
    """Record ``matches`` matches of uniformly random legal play; match ``k`` plays the
    engine seed ``rng.game_seeds(seed, ·)[k]``, the actions come from ``seed`` too."""
    match_seeds = rng.game_seeds(seed, matches)
    generator = np.random.default_rng(seed)
    records: list[list[dict[str, Any]]] = []
    for start in range(0, matches, CHUNK):
        chunk_seeds = match_seeds[start : start + CHUNK]
        trace = engine.Trace(len(chunk_seeds))
        state = engine.init(rules, players, len(chunk_seeds), seeds=chunk_seeds, trace=trace)
        while not state.done.all():
            engine.step(state, random_actions(state, generator), trace=trace)
        records.extend(trace.current)
    return records


def write_records(path: str | Path, matches: Iterable[list[dict[str, Any]]]) -> None:
    """Write matches as JSON Lines, one event per line (all of the file or none of it).

    A match that has not ended (its events so far, as ``engine.Trace.current`` holds them
    between steps) gets a last ``{"type": "unfinished"}`` line, so that the replayer takes
    it up to there and still refuses a record that was cut short (docs/rules.md §10).
    """
    with atomic_open(path, "w", encoding="utf-8") as handle:
        for events in matches:
            for event in events:
                handle.write(json.dumps(event, ensure_ascii=False) + "\n")
            if events and events[-1]["type"] not in ("match_end", "unfinished"):
                handle.write(json.dumps(UNFINISHED) + "\n")


@cli.quiet_broken_pipe
def main(argv: list[str] | None = None) -> int:
    """The command line (``python -m sto_odno_env.record --help``)."""
    parser = cli.parser(
        "sto_odno_env.record",
        "Record matches of uniformly random legal play as JSON Lines (docs/rules.md §10).",
        epilog="Writes one file, --out (complete or not at all). Check it with\n"
        "  python -m sto_odno_env.replay FILE.jsonl",
    )
    parser.add_argument(
        "--rules", default="classic", help=f"preset ({', '.join(PRESETS)}) or a YAML file path"
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a rule, e.g. stacking=true or effects.Q.wild=false (repeatable)",
    )
    parser.add_argument(
        "--players", type=cli.positive_int, required=True, help="seats at the table (2 to 6)"
    )
    parser.add_argument(
        "--matches", type=cli.match_count, required=True, help="matches to play and record"
    )
    parser.add_argument(
        "--seed", type=cli.natural_int, default=0, help="seed of the deals and of the actions"
    )
    parser.add_argument(
        "--out", required=True, help="output .jsonl file (its directory must exist)"
    )
    args = parser.parse_args(argv)
    problem = cli.output_problem(args.out)
    if problem:
        parser.error(f"--out: {problem}")
    try:
        rules = rules_with_overrides(args.rules, args.overrides)
        rules.check_players(args.players)
    except RulesError as error:
        parser.error(str(error))
    records = play_random_matches(rules, args.players, args.matches, args.seed)
    try:
        write_records(args.out, records)
    except OSError as error:
        parser.error(f"--out: {cli.write_problem(args.out, error)}")
    lines = sum(len(events) for events in records)
    print(f"wrote {cli.plural(len(records), 'match', 'matches')} ({lines} lines) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
