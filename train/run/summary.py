"""The run's last words: what was saved and at which update, how to continue it, then every
figure with what it counts; also ``summary.json`` (when this command wrote into ``--out``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sto_odno_env.tools.cli import python_command
from train.config_keys import TrainConfig
from train.run import evaluations
from train.run.console import Console, rate
from train.run.outputs import Outputs
from train.run.protocol import Counters, Record, Saved


@dataclass
class Figures:
    """This command's own figures (the counters hold all sessions')."""

    updates: int = 0
    decisions: int = 0
    update_seconds: float = 0.0

    @property
    def rate(self) -> float:
        """Learner decisions per second of update time, this command."""
        return self.decisions / self.update_seconds if self.updates else 0.0


def saved_text(outputs: Outputs, counters: Counters, resumed: Saved | None) -> str:
    """What is on disk, and from which update."""
    files = outputs.saved_files
    if files and outputs.saved_update == counters.update:
        names = " and ".join(str(path) for path in files)
        same = ", the same weights" if len(files) > 1 else ""
        return (
            f"{names}: update {counters.update:,} ({counters.global_step:,} learner "
            f"decisions){same}"
        )
    if files:
        return (
            f"{files[0]} holds update {outputs.saved_update:,}; the updates after it were not saved"
        )
    if resumed is not None:
        return f"nothing new: {resumed.path} still holds update {resumed.counters.update:,}"
    return "nothing yet (no update or warm start had finished)"


def resume_command(prog: str, outputs: Outputs, resumed: Saved | None) -> str | None:
    """The exact command that continues this run, or None when nothing is saved."""
    checkpoint = outputs.saved_files[0] if outputs.saved_files else None
    if checkpoint is None and resumed is not None:
        checkpoint = resumed.path
    if checkpoint is None:
        return None
    # prog reads "python train/ppo.py": printed with the interpreter the shell can run
    return f"{shell_prog(prog)} --resume {checkpoint}"


def shell_prog(prog: str) -> str:
    """``prog`` (``python train/ppo.py``) as the user's shell runs it
    (:func:`sto_odno_env.tools.cli.python_command`)."""
    word, _, rest = prog.partition(" ")
    return f"{python_command()} {rest}" if word == "python" else prog


def report(
    console: Console,
    status: str,
    rows: list[tuple[str, str]],
    counters: Counters,
    figures: Figures,
    wall: float,
    scores: dict[str, float],
    out: Path,
) -> None:
    """The summary's lines: ``rows`` (what was saved, ...) then the figures."""
    if not (counters.update or counters.elapsed or counters.evaluations):
        # nothing ran yet: no figures to report
        rows = [*rows, ("command time", f"{wall / 60:.1f} min of wall clock")]
        lines = [f"summary ({status})"] + [f"  {name:<17}  {value}" for name, value in rows]
        console.say("\n".join(lines))
        return
    rows = [
        *rows,
        ("updates", f"{counters.update:,} ({figures.updates:,} in this command)"),
        ("learner decisions", f"{counters.global_step:,} trained on"),
        ("learner matches", f"{counters.episodes:,} finished in the training games"),
        (
            "training time",
            f"{counters.elapsed / 60:.1f} min (warm start and updates, all sessions; "
            "evaluations and saving not counted)",
        ),
        (
            "speed",
            f"{rate(figures.rate)} (learner decisions per second of update time, this command)"
            if figures.updates
            else "- (no update in this command)",
        ),
        ("command time", f"{wall / 60:.1f} min of wall clock"),
    ]
    if scores:
        shown = ", ".join(f"{name} {value:.3f}" for name, value in scores.items())
        rows.append(("league scores", f"{shown} (the learner's, in the training games)"))
    rows.append(("output", str(out)))
    width = max(len(name) for name, _ in rows)
    lines = [f"summary ({status})"] + [f"  {name:<{width}}  {value}" for name, value in rows]
    console.say("\n".join(lines))


def evaluation_rows(counters: Counters, best_name: str | None) -> list[tuple[str, str]]:
    """The summary's lines on the best evaluation (its file ``best_name``; None: no trainer
    was built to name it) and the latest."""
    rows = []
    best = evaluations.best(counters.evaluations)
    if best is not None and best_name is not None:
        rows.append((best_name, f"update {best[0]['update']:,}: {evaluations.describe(best)}"))
    latest = evaluations.latest(counters.evaluations)
    if latest is not None:
        rows.append(
            ("latest evaluation", f"update {latest[0]['update']:,}: {evaluations.describe(latest)}")
        )
    return rows


def summary_json(
    status: str,
    outputs: Outputs,
    counters: Counters,
    figures: Figures,
    wall: float,
    scores: dict[str, float],
    config: TrainConfig,
    extra: Record,
) -> str:
    """``summary.json``'s text."""
    latest = evaluations.latest(counters.evaluations)
    best = evaluations.best(counters.evaluations)
    data = {
        "status": status,
        "saved_update": outputs.saved_update,
        "saved_files": [str(path) for path in outputs.saved_files],
        "updates": counters.update,
        "learner_decisions": counters.global_step,
        "learner_matches": counters.episodes,
        "training_minutes": round(counters.elapsed / 60, 3),
        "command_minutes": round(wall / 60, 3),
        "decisions_per_second": round(figures.rate),
        "decisions_per_second_counts": "learner decisions per second of update time "
        "(collection and learning), this command",
        "latest_evaluation": _one_or_list(latest),
        "best_evaluation": _one_or_list(best),
        "league_scores": {name: round(value, 4) for name, value in scores.items()},
        "config": config.to_dict(),
        "out": str(outputs.out),
        **extra,
    }
    return json.dumps(data, indent=2) + "\n"


def _one_or_list(group: list[Record] | None) -> Record | list[Record] | None:
    return group[0] if group and len(group) == 1 else group
