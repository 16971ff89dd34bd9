"""The files an evaluation writes to ``--out`` (``OUTPUT_FILES``): results.json, the pair
and per-agent tables as CSV and the win-rate plot, each complete or absent."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from agents.checks import check_dependencies
from agents.report import compared_rows
from sto_odno_env.tools.cli import atomic_open


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
