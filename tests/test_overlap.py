"""Overlapped training (``overlap: true``, train/ppo_parts/overlap.py): a tiny end-to-end run in
each mode, exact resume of an overlapped run (the same weights, games, league and generators as
the uninterrupted overlapped run), resume across the modes, the collector's lag, and
Ctrl-C to the process group, SIGTERM to the learner and a killed learner: a clean exit, the
last finished update saved, no process left behind."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.support.training import TINY, TrainerProcess, assert_files_agree, stopped
from train import ppo
from train.config_keys import ConfigError
from train.ppo_parts import overlap
from train.run.command_line import parse
from train.run.protocol import Counters
from train.run.session import Session, execute

OVERLAP = [*TINY[:-1], "overlap=true"]  # TINY ends with overlap=false


def session(out: Path, steps: int, *extra: str, resume: Path | None = None) -> Session:
    argv = [*OVERLAP, "--out", str(out), "--total-steps", str(steps), "--no-progress", *extra]
    if resume is not None:
        argv += ["--resume", str(resume)]
    code, result = execute(ppo.SPEC, argv)
    assert code == 0
    return result


def descendants(pid: int) -> set[int]:
    """The living processes below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"


def gone(pids: set[int], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(alive(pid) for pid in pids):
            return True
        time.sleep(0.1)
    return False


def checkpoint_training(path: Path) -> dict:
    return torch.load(path, weights_only=True)["training"]


def test_an_overlapped_run_trains_checkpoints_and_stops_its_collector(tmp_path):
    result = session(tmp_path, 16 * 8 * 4)
    trainer = result.trainer
    assert result.counters.update == 4 and result.counters.global_step == 16 * 8 * 4
    assert_files_agree(tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    pid = summary["overlap"]["collector_pid"]
    assert pid and not alive(pid)  # closed and reaped when the run ended
    training = checkpoint_training(tmp_path / "checkpoint.pt")
    record = training["overlap"]
    assert record["rollout"] == 5  # the collector's state at the start of the next rollout
    # snapshot_every=1: update u's weights join the league before rollout u + 2, so at
    # rollout 5's start it holds updates 1, 2, 3, the newest two in its two slots
    assert sorted(training["league"]["snapshot_updates"]) == [2, 3]
    assert set(record["behaviour"]) == {"actor", "critic"}
    assert summary["latest_evaluation"]["update"] == 4
    # the trained policy plays (an illegal move would raise in the evaluation above too)
    assert trainer.collector is not None and not trainer.collector.process.is_alive()


def test_the_collector_acts_one_update_behind(tmp_path):
    """Rollout j is collected with update j - 2's weights: rollout 5 of the checkpoint
    after update 4 with update 3's, which the checkpoint after update 3 holds."""
    session(tmp_path / "a", 16 * 8 * 3)
    after_three = torch.load(tmp_path / "a" / "checkpoint.pt", weights_only=True)
    session(tmp_path / "a", 16 * 8 * 4, resume=tmp_path / "a" / "checkpoint.pt")
    after_four = checkpoint_training(tmp_path / "a" / "checkpoint.pt")
    behaviour = after_four["overlap"]["behaviour"]["actor"]
    for name, weight in after_three["state_dict"].items():
        assert torch.equal(behaviour[name], weight), name
    behaviour_critic = after_four["overlap"]["behaviour"]["critic"]
    for name, weight in after_three["training"]["critic"].items():
        assert torch.equal(behaviour_critic[name], weight), name


def test_an_overlapped_resume_continues_as_the_uninterrupted_overlapped_run(tmp_path):
    straight = session(tmp_path / "straight", 16 * 8 * 5)
    session(tmp_path / "split", 16 * 8 * 2)
    resumed = session(tmp_path / "split", 16 * 8 * 5, resume=tmp_path / "split" / "checkpoint.pt")
    assert resumed.counters.update == straight.counters.update == 5
    for part in ("actor", "critic"):
        a = getattr(straight.trainer.agent, part).state_dict()
        b = getattr(resumed.trainer.agent, part).state_dict()
        for name in a:
            assert torch.equal(a[name], b[name]), (part, name)
    a = checkpoint_training(tmp_path / "straight" / "checkpoint.pt")
    b = checkpoint_training(tmp_path / "split" / "checkpoint.pt")
    for name in a["games"]:  # the games in progress, as the collector left them
        assert torch.equal(a["games"][name]["bytes"], b["games"][name]["bytes"]), name
    assert torch.equal(a["league"]["assign"], b["league"]["assign"])
    assert a["league"]["snapshot_updates"] == b["league"]["snapshot_updates"]
    assert torch.equal(a["generator"], b["generator"])
    assert torch.equal(a["overlap"]["learner_generator"], b["overlap"]["learner_generator"])
    assert torch.equal(a["member_games"], b["member_games"])


def test_a_checkpoint_resumes_in_the_other_mode(tmp_path):
    session(tmp_path / "run", 16 * 8 * 2)
    checkpoint = tmp_path / "run" / "checkpoint.pt"
    one = session(tmp_path / "run", 16 * 8 * 3, "overlap=false", resume=checkpoint)
    assert one.counters.update == 3 and one.trainer.collector is None
    again = session(tmp_path / "run", 16 * 8 * 5, "overlap=true", resume=checkpoint)
    assert again.counters.update == 5 and again.trainer.collector is not None


def test_a_failing_collector_is_an_error_naming_it(tmp_path):
    settings = parse(ppo.SPEC, [*OVERLAP, "--out", str(tmp_path), "warm_start=none"])
    trainer = ppo.PPO(settings)
    try:
        trainer.start_collector()
        trainer.collector.process.kill()
        with pytest.raises(overlap.CollectorError, match="collector process"):
            trainer.train(Counters())
    finally:
        trainer.close()
    assert not trainer.collector.process.is_alive()


class Stop(Exception):
    pass


def test_a_stop_right_after_the_collector_starts_stops_it(tmp_path, monkeypatch):
    """A stop raised as the collector process has just started (before the learner holds
    its handle): the half-made collector stops it, and it leaves by the learner's stop."""
    settings = parse(ppo.SPEC, [*OVERLAP, "--out", str(tmp_path), "warm_start=none"])
    trainer = ppo.PPO(settings)
    started = []
    start = multiprocessing.process.BaseProcess.start

    def start_then_stop(process) -> None:
        start(process)
        started.append(process)
        raise Stop

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", start_then_stop)
    try:
        with pytest.raises(Stop):
            trainer.start_collector()
    finally:
        trainer.close()
    collectors = [process for process in started if process.name == "sto-odno-collector"]
    assert collectors and not collectors[0].is_alive()
    assert collectors[0].exitcode == 0  # it took the learner's stop, not a kill


def test_overlap_takes_true_or_false():
    with pytest.raises(ConfigError, match="overlap"):
        parse(ppo.SPEC, ["overlap=sometimes"])


QUIET = [
    "--num-envs", "64", "--no-progress", "eval_matches=20", "hidden=[64]", "warm_start=none",
    "eval_every_minutes=0", "overlap=true",
]  # fmt: skip


def started(out: Path) -> tuple[TrainerProcess, set[int]]:
    """An overlapped run past its first update; its processes below the learner."""
    process = TrainerProcess([*QUIET, "--out", str(out)])
    process.wait_for("speed: ")  # the first update has finished
    time.sleep(0.5)
    children = descendants(process.process.pid)
    assert children, "no collector process"
    return process, children


@pytest.mark.slow
@pytest.mark.parametrize(("number", "group"), [(signal.SIGINT, True), (signal.SIGTERM, False)])
def test_a_stop_saves_the_last_finished_update_and_leaves_no_process(tmp_path, number, group):
    process, children = started(tmp_path / "run")
    out, _ = stopped(process, number, group=group)
    assert f"{signal.Signals(number).name} during update: saving the last finished update" in out
    counters = assert_files_agree(tmp_path / "run")
    assert counters["update"] >= 1 and counters["global_step"] == counters["update"] * 64 * 32
    assert gone(children), [pid for pid in children if alive(pid)]
    # the saved update resumes (the collector restarts from the checkpointed state)
    code, result = execute(
        ppo.SPEC,
        ["--resume", str(tmp_path / "run" / "checkpoint.pt"), "--total-steps",
         str((counters["update"] + 1) * 64 * 32)],
    )  # fmt: skip
    assert code == 0 and result.counters.update == counters["update"] + 1


@pytest.mark.slow
def test_the_collector_exits_when_its_learner_is_killed(tmp_path):
    process, children = started(tmp_path / "run")
    process.process.kill()
    process.process.wait(timeout=30)
    assert gone(children), [pid for pid in children if alive(pid)]
    np.testing.assert_equal(process.process.returncode, -signal.SIGKILL)
