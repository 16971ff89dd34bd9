"""The run's files in ``--out``: when a checkpoint is due, writing the trainer's checkpoint
and policy file together from the same finished update, and what is on disk now.

Every file is written whole or not at all (a temporary file renamed into place:
``sto_odno_env.tools.cli.atomic_open``, the kit's one atomic write). The folder is made when
the first file is written, so a run stopped before it has anything leaves no empty folder;
with ``--overwrite`` the other run's files are removed then, not before.
"""

from __future__ import annotations

import csv
import shutil
import time
from pathlib import Path

from sto_odno_env.tools import cli
from train.run.protocol import Captured, Counters, Record, Trainer

# What a trainer writes into --out: a folder holding any of these holds a run.
RUN_FILES = (
    "checkpoint.pt", "checkpoint", "policy.pt", "model.zip", "best.pt", "best.zip",
    "evaluations.csv", "summary.json", "tb", "exploit.json", "curve.csv", "curve.png",
)  # fmt: skip


def run_files(out: Path) -> list[str]:
    """The run files (:data:`RUN_FILES`) in the folder ``out``."""
    return [name for name in RUN_FILES if (out / name).exists()]


class Outputs:
    """``--out`` and what this command wrote there."""

    def __init__(self, out: Path, saved_update: int | None, overwrite: bool):
        self.out = out
        self.saved_update = saved_update  # the update on disk (the resumed one at first)
        self.saved_files: list[Path] = []  # what this command saved last
        self.worth_saving = False  # the captured state holds work that is not on disk yet
        self.wrote = False  # this command wrote into --out
        self.save_seconds = 1.0  # the last save's (a guess before the first)
        self.last_save = time.monotonic()
        self._overwrite = overwrite

    def folder(self) -> Path:
        """``--out``, made now if it is not there (and emptied of another run's files with
        ``--overwrite``, once)."""
        if self._overwrite:
            for name in run_files(self.out):
                path = self.out / name
                if path.is_dir():
                    shutil.rmtree(path)
                else:
                    path.unlink()
            self._overwrite = False
        self.out.mkdir(parents=True, exist_ok=True)
        self.wrote = True
        return self.out

    def due(self, every_minutes: float) -> bool:
        """A checkpoint is due: ``every_minutes`` since the last and something new."""
        return self.worth_saving and time.monotonic() - self.last_save >= 60 * every_minutes

    def save(self, trainer: Trainer[Captured], captured: Captured, counters: Counters) -> None:
        """The trainer's checkpoint and policy file, from the same captured update."""
        began = time.monotonic()
        out = self.folder()
        checkpoint = trainer.write_checkpoint(captured, counters, out)
        policy = out / trainer.policy_name
        self.saved_files = [checkpoint]
        if policy != checkpoint:
            trainer.write_policy(captured, policy)
            self.saved_files.append(policy)
        self.saved_update = counters.update
        self.worth_saving = False
        self.save_seconds = time.monotonic() - began
        self.last_save = time.monotonic()

    def write_text(self, name: str, text: str) -> None:
        """``text`` as the file ``name`` in ``--out``, written whole."""
        with cli.atomic_open(self.folder() / name, "w", encoding="utf-8") as handle:
            handle.write(text)

    def write_evaluations(self, rows: list[Record]) -> None:
        """``evaluations.csv``, written whole."""
        with cli.atomic_open(self.folder() / "evaluations.csv", "w", newline="") as handle:
            # rows resumed from before a column existed lack it
            names = list(dict.fromkeys(k for row in rows for k in row))
            writer = csv.DictWriter(handle, fieldnames=names)
            writer.writeheader()
            writer.writerows(rows)
