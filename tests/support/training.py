"""Shared by the trainer's tests (tests/test_train.py, test_overlap.py, test_tables.py,
test_rllib.py): tiny runs of ``train/ppo.py`` through the run harness, a real trainer
process to signal, and the check that a run's files describe one update."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import torch

from tests.helpers import start
from train import ppo
from train.run.session import Session, execute

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "data" / "checkpoints"  # checkpoints written by older kits
TINY = [
    "--num-envs", "16", "rollout_steps=8", "epochs=2", "minibatch_size=64", "hidden=[16]",
    "eval_matches=20", "league.snapshot_every=1", "league.max_snapshots=2",
    "league.random=0.2", "warm_start_decisions=1024", "warm_start_epochs=1",
    "overlap=false",  # one process: tests/test_overlap.py runs the overlapped mode
]  # fmt: skip


def tiny_run(out: Path, steps: int, *extra: str, resume: Path | None = None) -> ppo.PPO:
    trainer, _ = tiny_session(out, steps, *extra, resume=resume)
    return trainer


def tiny_session(
    out: Path, steps: int, *extra: str, resume: Path | None = None
) -> tuple[ppo.PPO, Session]:
    argv = [*TINY, "--out", str(out), "--total-steps", str(steps), "--no-progress", *extra]
    if resume is not None:
        argv += ["--resume", str(resume)]
    code, session = execute(ppo.SPEC, argv)
    assert code == 0
    return session.trainer, session


def assert_files_agree(out: Path) -> dict:
    """checkpoint.pt, policy.pt and summary.json name the same update, with the same
    weights; no temporary file is left. Returns the checkpoint's counters."""
    checkpoint = torch.load(out / "checkpoint.pt", weights_only=True)
    policy = torch.load(out / "policy.pt", weights_only=True)
    assert "training" not in policy
    for name, weight in checkpoint["state_dict"].items():
        assert torch.equal(weight, policy["state_dict"][name]), name
    counters = checkpoint["training"]["counters"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["saved_update"] == summary["updates"] == counters["update"]
    assert summary["learner_decisions"] == counters["global_step"]
    assert not list(out.glob("*.tmp")), list(out.glob("*.tmp"))
    return counters


class TrainerProcess:
    """``python SCRIPT ARGV`` in its own process group, its output read as it comes."""

    def __init__(self, argv: list[str], script: str = "train/ppo.py"):
        # faulthandler: a stop that hangs shows every thread's stack (:meth:`stop`)
        command = [sys.executable, "-X", "faulthandler", script, *argv]
        self.process = start(command, cwd=ROOT, start_new_session=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")

    def wait_for(self, text: str, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                continue
            if not line:
                break
            self.seen.append(line)
            if text in line:
                return
        os.killpg(self.process.pid, signal.SIGKILL)
        raise AssertionError(f"no {text!r} in:\n{''.join(self.seen)}{self.process.stderr.read()}")

    def stop(self, number: int, group: bool = False) -> tuple[int, str, str]:
        """Send signal ``number`` (to the whole process group, as a terminal's Ctrl-C
        does, with ``group``); the exit code, the output and the errors."""
        if group:
            os.killpg(self.process.pid, number)
        else:
            self.process.send_signal(number)
        try:
            code = self.process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGABRT)  # faulthandler prints the stacks
            self.process.wait(timeout=30)
            raise AssertionError(
                f"no exit 120 s after {signal.Signals(number).name}:\n"
                f"{''.join(self.seen)}{self.process.stderr.read()}"
            ) from None
        while True:
            line = self.lines.get(timeout=10)
            if not line:
                break
            self.seen.append(line)
        return code, "".join(self.seen), self.process.stderr.read()


def stopped(process: TrainerProcess, number: int, group: bool = False) -> tuple[str, str]:
    """Stop ``process``: a clean exit 130 without a traceback; its output and errors."""
    code, out, err = process.stop(number, group)
    assert code == 130, f"exit {code}\n{out}\n{err}"
    assert "Traceback" not in err and "Traceback" not in out, err
    return out, err


QUIET = ["--num-envs", "16", "--no-progress", "eval_matches=20", "hidden=[16]", "overlap=false"]
