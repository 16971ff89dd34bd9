"""train/run/summary.py: the run's last words: what is saved and from which update, the
command that continues it, this command's own figures and ``summary.json``."""

from __future__ import annotations

from pathlib import Path

from train.run.outputs import Outputs
from train.run.protocol import Counters, Saved
from train.run.summary import Figures, evaluation_rows, resume_command, saved_text


def outputs_with(files: list[Path], update: int | None) -> Outputs:
    outputs = Outputs(Path("runs/x"), saved_update=update, overwrite=False)
    outputs.saved_files = files
    return outputs


def test_what_is_saved_names_the_files_and_their_update() -> None:
    counters = Counters(update=4, global_step=1234)
    both = outputs_with([Path("runs/x/checkpoint.pt"), Path("runs/x/policy.pt")], 4)
    assert saved_text(both, counters, None) == (
        "runs/x/checkpoint.pt and runs/x/policy.pt: update 4 (1,234 learner decisions), "
        "the same weights"
    )
    older = outputs_with([Path("runs/x/checkpoint.pt")], 3)
    assert "holds update 3; the updates after it were not saved" in saved_text(
        older, counters, None
    )
    assert saved_text(outputs_with([], None), counters, None).startswith("nothing yet")


def test_the_resume_command_continues_from_what_is_on_disk() -> None:
    prog = "train/ppo.py-as-run"
    saved = outputs_with([Path("runs/x/checkpoint.pt")], 2)
    assert resume_command(prog, saved, None) == f"{prog} --resume runs/x/checkpoint.pt"
    resumed = Saved(Path("runs/y/checkpoint.pt"), {}, {}, Counters(update=7), {})
    assert resume_command(prog, outputs_with([], None), resumed) == (
        f"{prog} --resume runs/y/checkpoint.pt"
    )
    assert resume_command(prog, outputs_with([], None), None) is None


def test_this_commands_rate_counts_its_own_updates_only() -> None:
    assert Figures().rate == 0.0
    assert Figures(updates=2, decisions=3000, update_seconds=1.5).rate == 2000.0


def test_the_evaluation_rows_name_the_best_and_the_latest() -> None:
    rows = [{"update": u, "rate": r, "players": 2, "low": 0.0, "high": 1.0, "opponent": "expert",
             "matches": 10} for u, r in ((1, 0.7), (2, 0.5))]  # fmt: skip
    found = dict(evaluation_rows(Counters(evaluations=rows), "best.pt"))
    assert found["best.pt"].startswith("update 1: 0.700")
    assert found["latest evaluation"].startswith("update 2: 0.500")
