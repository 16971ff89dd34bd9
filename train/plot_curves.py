"""Learning curves: ``python train/plot_curves.py RUN_DIR[=LABEL] ... --out PREFIX``.

Reads each run's ``evaluations.csv`` (written by ``train/ppo.py``) and draws the
evaluation rate with its Wilson 95% band over learner decisions (``PREFIX_steps.png``) and
over training minutes (``PREFIX_minutes.png``).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path


def read_curve(run: Path) -> dict[str, list[float]]:
    """The columns of a run's evaluations.csv as floats."""
    path = run / "evaluations.csv"
    if not path.is_file():
        raise SystemExit(f"error: {str(path)!r} does not exist (not a train/ppo.py run?)")
    with path.open() as handle:
        rows = list(csv.DictReader(handle))
    columns = ("step", "minutes", "rate", "low", "high")
    return {name: [float(row[name]) for row in rows] for name in columns}


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
        curve = read_curve(Path(directory))
        if args.from_first and curve["minutes"]:
            curve["minutes"] = [m - curve["minutes"][0] for m in curve["minutes"]]
        curves.append((label or Path(directory).name, curve))
    for axis, scale, label in (("step", 1e6, "learner decisions (millions)"),
                               ("minutes", 1.0, "training minutes (2-core CPU)")):  # fmt: skip
        figure, ax = plt.subplots(figsize=(7, 4))
        for name, curve in curves:
            xs = [x / scale for x in curve[axis]]
            ax.plot(xs, curve["rate"], marker="o", markersize=3, label=name)
            ax.fill_between(xs, curve["low"], curve["high"], alpha=0.2)
        ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xlabel(label)
        ax.set_ylabel("win rate (ties ½)")
        ax.set_ylim(0, 1)
        ax.set_title(args.title)
        ax.grid(alpha=0.3)
        ax.legend()
        figure.tight_layout()
        path = Path(f"{args.out}_{'steps' if axis == 'step' else 'minutes'}.png")
        path.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(path, dpi=110)
        plt.close(figure)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
