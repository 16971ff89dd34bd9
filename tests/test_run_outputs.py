"""train/run/outputs.py: the files of ``--out``: made on the first write, another run's
removed only with ``--overwrite``, a checkpoint and its policy from the same update."""

from __future__ import annotations

import csv
from pathlib import Path

from train.run.outputs import Outputs, run_files
from train.run.protocol import Counters


class FakeTrainer:
    """Writes its checkpoint and policy files as text, naming the update."""

    policy_name = "policy.pt"

    def write_checkpoint(self, captured: str, counters: Counters, out: Path) -> Path:
        (out / "checkpoint.pt").write_text(captured)
        return out / "checkpoint.pt"

    def write_policy(self, captured: str, path: Path) -> None:
        path.write_text(captured)


def test_the_folder_is_made_only_when_something_is_written(tmp_path: Path) -> None:
    outputs = Outputs(tmp_path / "run", saved_update=None, overwrite=False)
    assert not (tmp_path / "run").exists() and not outputs.wrote
    outputs.write_text("summary.json", "{}")
    assert (tmp_path / "run" / "summary.json").read_text() == "{}" and outputs.wrote
    assert run_files(tmp_path / "run") == ["summary.json"]


def test_overwrite_removes_the_other_runs_files_once_and_keeps_others(tmp_path: Path) -> None:
    (tmp_path / "tb").mkdir()
    (tmp_path / "best.pt").write_text("old")
    (tmp_path / "notes.txt").write_text("mine")
    outputs = Outputs(tmp_path, saved_update=None, overwrite=True)
    outputs.folder()
    assert run_files(tmp_path) == [] and (tmp_path / "notes.txt").exists()
    (tmp_path / "best.pt").write_text("new")
    outputs.folder()  # the second time removes nothing
    assert (tmp_path / "best.pt").read_text() == "new"


def test_a_save_writes_the_checkpoint_and_policy_of_one_update(tmp_path: Path) -> None:
    outputs = Outputs(tmp_path, saved_update=None, overwrite=False)
    outputs.worth_saving = True
    assert outputs.due(every_minutes=0)
    outputs.save(FakeTrainer(), "update 3", Counters(update=3))
    assert outputs.saved_files == [tmp_path / "checkpoint.pt", tmp_path / "policy.pt"]
    assert {path.read_text() for path in outputs.saved_files} == {"update 3"}
    assert outputs.saved_update == 3 and not outputs.due(every_minutes=0)


def test_evaluations_csv_has_every_column_of_old_and_new_rows(tmp_path: Path) -> None:
    outputs = Outputs(tmp_path, saved_update=None, overwrite=False)
    outputs.write_evaluations([{"update": 1, "rate": 0.5}, {"update": 2, "rate": 0.6, "low": 0.4}])
    with (tmp_path / "evaluations.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows == [
        {"update": "1", "rate": "0.5", "low": ""},
        {"update": "2", "rate": "0.6", "low": "0.4"},
    ]
