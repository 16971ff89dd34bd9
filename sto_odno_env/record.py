"""Writing game records (RULES.md §10), and a CLI that records random matches.

    python -m sto_odno_env.record --rules PRESET_OR_YAML [--set key=value ...] \\
        --players P --matches N --seed S --out FILE.jsonl

plays N matches with uniformly random legal actions and writes their records; ``--set``
takes dotted paths into the rule-set schema (``stacking=true``, ``effects.Q.wild=false``,
``finish_bonus.K♠.points=-50``), values parsed as YAML. Check a file with
``python -m sto_odno_env.replay FILE.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from . import engine, rng
from .rules import Rules, RulesError, load_rules, set_path

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
    """Write matches as JSON Lines, one event per line."""
    with Path(path).open("w", encoding="utf-8") as handle:
        for events in matches:
            for event in events:
                handle.write(json.dumps(event, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Record matches of uniformly random legal play as JSON Lines."
    )
    parser.add_argument("--rules", default="classic", help="preset name or YAML path")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a rule, e.g. stacking=true or effects.Q.wild=false (repeatable)",
    )
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--matches", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True, help="output .jsonl file")
    args = parser.parse_args(argv)
    try:
        rules = rules_with_overrides(args.rules, args.overrides)
        rules.check_players(args.players)
    except RulesError as error:
        parser.error(str(error))
    if args.matches < 1:
        parser.error(f"--matches must be >= 1, got {args.matches}")
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    records = play_random_matches(rules, args.players, args.matches, args.seed)
    write_records(args.out, records)
    lines = sum(len(events) for events in records)
    print(f"wrote {len(records)} matches ({lines} lines) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
