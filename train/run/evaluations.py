"""Evaluation during a run: every ``eval_every_minutes`` (and at the start and the end),
duplicate deals against ``eval_opponent``, the same deals every time
(``train/run/evaluate.py``); each evaluation is a row of ``evaluations.csv`` per player count,
and the best evaluated policy is ``best.pt``.

What picks ``best.pt``: the rate at one player count, or the mean rate above par over
several (``players_mix``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from sto_odno_env.bots.policy import BasePolicy
from train.config_keys import TrainConfig
from train.run.console import Console, duration
from train.run.protocol import Counters, Record

if TYPE_CHECKING:
    from sto_odno_env.game.rules import Rules
    from train.run.evaluate import ExactTable

EVALUATION_SEED_OFFSET = 100_003  # the evaluation deals: another stream than the games'
Rows = list[Record]


def eval_counts(config: TrainConfig) -> list[int]:
    """The player counts an evaluation plays: each of ``players_mix``, or ``players``."""
    return list(config.players_mix) or [config.players]


class Evaluations:
    """When to evaluate, and one evaluation's matches and records."""

    def __init__(self, config: TrainConfig, rules: Rules):
        self.config = config
        self.rules = rules
        self.seconds = 0.0  # the last evaluation's
        self.last = time.monotonic()
        self.exact: dict[int, ExactTable] = {}  # per player count

    @property
    def enabled(self) -> bool:
        return bool(self.config.eval_every_minutes)

    def wanted(self, counters: Counters) -> bool:
        """Evaluations are on and none has been recorded at ``counters.update`` yet."""
        rows = counters.evaluations
        return self.enabled and not (rows and rows[-1]["update"] == counters.update)

    def due(self) -> bool:
        """``eval_every_minutes`` have passed since the last evaluation."""
        every = 60 * self.config.eval_every_minutes
        return bool(every) and time.monotonic() - self.last >= every

    def play(self, label: str, agent: BasePolicy, counters: Counters, console: Console) -> Rows:
        """Evaluate ``agent`` (the policy at ``counters.update``); its rows, one per player
        count, with a progress bar labelled ``label``."""
        from sto_odno_env.bots.registry import load as load_agent
        from train.run.evaluate import ExactTable, evaluate

        config = self.config
        began = time.monotonic()
        counts = eval_counts(config)
        results = []
        with console.bar(label, sum(map(matches(config), counts)), "matches") as progress:
            for players in counts:
                opponent = load_agent(config.eval_opponent, self.rules, players, seed=config.seed)
                result = evaluate(
                    agent, opponent, config.eval_opponent, self.rules, players,
                    config.eval_matches, seed=config.seed + EVALUATION_SEED_OFFSET,
                    progress=progress.advance,
                )  # fmt: skip
                exact = self.exact.setdefault(players, ExactTable(self.rules, players))
                results.append(exact.measure(result, agent, opponent))
        self.seconds = time.monotonic() - began
        self.last = time.monotonic()
        minutes = counters.elapsed / 60
        rows = [result.row(counters.update, counters.global_step, minutes) for result in results]
        for result in results:
            console.say(
                f"{label} at update {counters.update:,} ({counters.global_step:,} decisions, "
                f"{counters.elapsed / 60:.1f} training min): {result.describe()} "
                f"({duration(self.seconds)})"
            )
        return rows


def matches(config: TrainConfig) -> Callable[[int], int]:
    """The matches an evaluation plays at a count: whole duplicate deals."""

    def at(players: int) -> int:
        return max(1, config.eval_matches // players) * players

    return at


def by_update(rows: Rows) -> list[Rows]:
    """The evaluations' rows, one list per evaluation (one row per player count)."""
    groups: list[Rows] = []
    for row in rows:
        if groups and groups[-1][0]["update"] == row["update"]:
            groups[-1].append(row)
        else:
            groups.append([row])
    return groups


def score(group: Rows) -> float:
    """What picks best.pt: one count's rate, or several counts' mean rate above par."""
    if len(group) == 1:
        return _number(group[0], "rate")
    return sum(_number(row, "rate") - 1.0 / _number(row, "players") for row in group) / len(group)


def _number(row: Record, key: str) -> float:
    """A number of an evaluation row (:meth:`train.run.evaluate.Result.row`'s)."""
    value = row[key]
    if not isinstance(value, (int, float)):
        raise TypeError(f"evaluation row's {key!r} is {value!r}, not a number")
    return value


def latest(rows: Rows) -> Rows | None:
    groups = by_update(rows)
    return groups[-1] if groups else None


def best(rows: Rows) -> Rows | None:
    found = None
    for group in by_update(rows):  # the first of equal scores: when best.pt was written
        if found is None or score(group) > score(found):
            found = group
    return found


def describe(group: Rows) -> str:
    return "; ".join(
        f"{row['rate']:.3f} [{row['low']:.3f}, {row['high']:.3f}] vs {row['opponent']} over "
        f"{row['matches']:,} matches"
        + (
            f", exact reward {row['exact_reward']:+.4f}, exploitability {row['exploitability']:.4f}"
            if "exact_reward" in row
            else ""
        )
        for row in group
    )
