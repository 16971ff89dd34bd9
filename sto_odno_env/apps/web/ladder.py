"""The ladder page's data: the ``results.json`` files of ``python -m agents.evaluate`` under
``--results``, each as a win-rate matrix with its intervals, a per-agent table with the
OpenSkill ratings, and the plots (``*.png``) beside it.

Files are found by the server and named by their index in the listing; a plot is named by
its file name within its result's folder, looked up in that folder's listing, so a client
never names a path. A file that is not a readable report is listed with its fault.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_RESULTS = 200
MAX_BYTES = 16 * 1024 * 1024


@dataclass
class Result:
    """One evaluation report."""

    index: int
    name: str  # its folder, relative to --results
    folder: Path
    report: dict[str, Any] | None = None
    error: str | None = None
    plots: list[str] = field(default_factory=list)
    matrix: dict[str, Any] | None = None
    agents: list[dict[str, Any]] = field(default_factory=list)  # best OpenSkill ordinal first


def _inside(path: Path, base: Path) -> bool:
    try:
        return path.resolve().is_relative_to(base)
    except OSError:
        return False


def list_results(root: Path | None) -> list[Result]:
    """Every ``results.json`` under ``root`` (sub-folders included), in name order."""
    if root is None or not root.is_dir():
        return []
    base = root.resolve()
    results: list[Result] = []
    for path in sorted(base.rglob("results.json")):
        if len(results) >= MAX_RESULTS:
            break
        if not _inside(path, base) or not path.is_file():
            continue
        folder = path.parent
        name = folder.relative_to(base).as_posix()
        result = Result(len(results), "." if name == "." else name, folder)
        try:
            if path.stat().st_size > MAX_BYTES:
                raise ValueError(f"larger than {MAX_BYTES} bytes")
            report = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(report, dict) or not isinstance(report.get("agents"), list):
                raise ValueError("not a report of python -m agents.evaluate (no 'agents' list)")
            result.report = report
            result.matrix = win_matrix(report)
            result.agents = agent_rows(report)
        except (OSError, ValueError, TypeError, KeyError, UnicodeDecodeError) as error:
            result.error = f"{name}/results.json: {error}"
        result.plots = plots(folder, base)
        results.append(result)
    return results


def plots(folder: Path, base: Path) -> list[str]:
    """The PNG files in ``folder`` (inside ``base``), by name."""
    try:
        return sorted(p.name for p in folder.glob("*.png") if p.is_file() and _inside(p, base))
    except OSError:
        return []


def win_matrix(report: dict[str, Any]) -> dict[str, Any] | None:
    """The head-to-head rows as a matrix: ``cells[row][col]`` is the row agent's win rate
    against the column agent (ties ½) with its 95% Wilson interval and match count, from
    the row's point of view (a pair's row read the other way is 1 − rate, [1 − high,
    1 − low]). None when the report has no head-to-head rows (more than two players)."""
    rows = report.get("head_to_head") or []
    if not rows:
        return None
    agents: list[str] = [a["agent"] for a in report.get("agents", []) if "agent" in a]
    for row in rows:
        for name in (row["agent"], row["opponent"]):
            if name not in agents:
                agents.append(name)
    cells: dict[str, dict[str, dict[str, Any]]] = {a: {} for a in agents}
    for row in rows:
        a, b = row["agent"], row["opponent"]
        rate, low, high = float(row["win_rate"]), float(row["ci_low"]), float(row["ci_high"])
        matches = int(row["matches"])
        cells[a][b] = {"rate": rate, "low": low, "high": high, "matches": matches}
        cells[b][a] = {"rate": 1 - rate, "low": 1 - high, "high": 1 - low, "matches": matches}
    return {"agents": agents, "cells": cells}


def agent_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The per-agent rows, best first (OpenSkill ordinal, else first-place rate); numbers
    a report lacks are None."""
    keys = (
        "agent", "matches", "first_rate", "first_ci_low", "first_ci_high", "mean_reward",
        "openskill_mu", "openskill_sigma", "openskill_ordinal",
    )  # fmt: skip
    rows = [{key: row.get(key) for key in keys} for row in report["agents"] if "agent" in row]

    def order(row: dict[str, Any]) -> float:
        value = row["openskill_ordinal"]
        value = row["first_rate"] if value is None else value
        return -float(value) if isinstance(value, int | float) else 0.0

    return sorted(rows, key=order)
