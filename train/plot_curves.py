"""Learning curves: ``python train/plot_curves.py RUN[=LABEL] ... --out PREFIX``.

Reads each run's ``evaluations.csv`` (written by ``train/ppo.py``; RUN is its directory, or
a shipped policy's ``.json``, which holds the evaluations of the run it came from) and
draws the evaluation rate with its Wilson 95% band over learner decisions
(``PREFIX_steps.png``) and over training minutes (``PREFIX_minutes.png``). A run over
several player counts (``players_mix``) gives one curve per count, with its par.

:func:`plot_response` draws ``train/exploit.py``'s curve of a best response.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path
from typing import Any

from sto_odno_env.tools import cli


def read_curves(run: Path) -> dict[int | None, dict[str, list[float]]]:
    """The columns of a run's evaluations as floats, by player count (None: one count
    of a run from before the ``players`` column)."""
    if run.suffix == ".json":
        import json

        rows = json.loads(run.read_text())["evaluations"]
    else:
        path = run / "evaluations.csv"
        if not path.is_file():
            raise SystemExit(f"error: {str(path)!r} does not exist (not a train/ppo.py run?)")
        with path.open() as handle:
            rows = list(csv.DictReader(handle))
    columns = ("step", "minutes", "rate", "low", "high")
    curves: dict[int | None, dict[str, list[float]]] = {}
    for row in rows:
        if any(row.get(name) in (None, "") for name in columns):
            continue  # not an evaluation row of this format
        players = int(row["players"]) if row.get("players") else None
        curve = curves.setdefault(players, {name: [] for name in columns})
        for name in columns:
            curve[name].append(float(row[name]))
    return curves


def plot_response(curve: list[dict[str, float]], result: dict[str, Any], path: Path) -> bool:
    """``train/exploit.py``'s ``curve.png``: the responder's win rate over minutes with its
    intervals; False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    minutes = [row["minutes"] for row in curve]
    rates = [row["rate"] for row in curve]
    figure, axes = plt.subplots(figsize=(6, 3.5))
    axes.plot(minutes, rates, marker="o", label="responder (curve deals)")
    axes.fill_between(minutes, [r["low"] for r in curve], [r["high"] for r in curve], alpha=0.2)
    axes.axhline(result["rate"], color="C1", linestyle="--", label="final (fresh deals)")
    axes.axhline(0.5 if result["players"] == 2 else 1 / result["players"], color="grey", lw=0.8)
    what = "win rate" if result["players"] == 2 else "first-place share"
    axes.set(
        title=f"best response to {result['candidate']} ({result['players']} players)",
        xlabel="minutes of training",
        ylabel=what,
    )
    axes.legend(loc="lower right")
    figure.tight_layout()
    with cli.atomic_open(path, "wb") as handle:
        figure.savefig(handle, format="png")
    plt.close(figure)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python train/plot_curves.py", description=__doc__)
    parser.add_argument("runs", nargs="+", help="run directories, optionally DIR=LABEL")
    parser.add_argument("--out", required=True, help="output prefix, e.g. docs/training/curve")
    parser.add_argument("--title", default="win rate against expert (duplicate deals)")
    parser.add_argument(
        "--from-first",
        action="store_true",
        help="count minutes from each run's first evaluation (runs resumed from one shared "
        "warm start)",
    )
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = []
    for spec in args.runs:
        directory, _, label = spec.partition("=")
        by_count = read_curves(Path(directory))
        for players, curve in by_count.items():
            if args.from_first and curve["minutes"]:
                curve["minutes"] = [m - curve["minutes"][0] for m in curve["minutes"]]
            name = label or Path(directory).stem
            if len(by_count) > 1:
                name = f"{name}, {players} players"
            curves.append((name, players, curve))
    for axis, scale, label in (("step", 1e6, "learner decisions (millions)"),
                               ("minutes", 1.0, "training minutes (2-core CPU)")):  # fmt: skip
        figure, ax = plt.subplots(figsize=(7, 4))
        for name, players, curve in curves:
            xs = [x / scale for x in curve[axis]]
            line = ax.plot(xs, curve["rate"], marker="o", markersize=3, label=name)[0]
            ax.fill_between(xs, curve["low"], curve["high"], alpha=0.2)
            par = 1.0 / (players or 2)
            ax.axhline(par, color=line.get_color(), linewidth=0.8, linestyle=":")
        ax.set_xlabel(label)
        ax.set_ylabel("win rate (ties ½) / first place; dotted: par")
        ax.set_ylim(0, 1)
        ax.set_title(args.title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, ncol=2, loc="upper right")
        figure.tight_layout()
        path = Path(f"{args.out}_{'steps' if axis == 'step' else 'minutes'}.png")
        path.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(path, dpi=110)
        plt.close(figure)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
