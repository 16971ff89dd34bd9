"""Distilling a search agent into a policy (train/distill.py): the positions are the
student's own, in one seat that moves round the table, each labelled by the teacher with a
legal action; the fit moves the policy to the labels; the command end to end writes a
policy that loads at the student's counts and plays legal moves; bad input is refused."""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from subprocess import Popen

import numpy as np
import pytest

pytest.importorskip("torch", reason="needs torch (pip install -e '.[train]')")

import torch

from agents import load
from sto_odno_env.bots.checkpoint import build_network, read
from sto_odno_env.bots.registry import SHIPPED, AgentError
from sto_odno_env.game import engine
from sto_odno_env.game.rules import load_rules
from sto_odno_env.views.observation import observe
from tests.helpers import Stopped, assert_stopped, stop_name, stop_when_ready
from train import distill

RULES = load_rules("classic")
# The archived mixed-count policy (no critic), by path: it stays in the lab, not the package.
MIX = str(Path(__file__).resolve().parents[1] / "lab" / "policies" / "ppo-classic-mix.pt")


def test_positions_are_the_students_own_choices_labelled_legally():
    student = load(MIX, RULES, 3)
    teacher = load("expert", RULES, 3)
    positions = distill.collect(student, teacher, load("greedy", RULES, 3), RULES, 3,
                                batch=24, decisions=300, seed=5)  # fmt: skip
    masks, labels, own = positions["masks"], positions["labels"], positions["own"]
    assert labels.size >= 300 and masks.shape == (labels.size, RULES.num_actions)
    assert (masks.sum(axis=1) > 1).all(), "forced moves are not labelled"
    rows = np.arange(labels.size)
    assert masks[rows, labels].all() and masks[rows, own].all()
    # the student's own recorded action is what the student plays in that position
    assert (student.act(positions["obs"], masks.astype(np.int8)) == own).all()
    # where the expert labels, it labels what the expert plays
    assert (teacher.act(positions["obs"], masks.astype(np.int8)) == labels).all()
    assert (labels != own).any(), "the expert and the policy differ somewhere"


def test_the_students_seat_moves_round_the_table():
    """The student sits in every seat over the matches (its seat moves on at each match's
    end), and a student that is its own teacher is labelled with its own moves."""
    student = load(MIX, RULES, 3)
    positions = distill.collect(student, student, load("expert", RULES, 3), RULES, 3,
                                batch=4, decisions=2500, seed=1)  # fmt: skip
    assert set(positions["seat"].tolist()) == {0, 1, 2}
    assert (positions["labels"] == positions["own"]).all()


def test_fit_moves_the_policy_to_the_labels():
    state = engine.init(RULES, 2, 64, seed=3)
    obs = observe(state, state.current_player.astype(np.intp))
    masks = engine.legal_mask(state) != 0
    generator = np.random.default_rng(0)
    labels = np.array([generator.choice(np.flatnonzero(mask)) for mask in masks])
    record = read(MIX)
    network = build_network(record["obs_size"], record["hidden"], record["num_actions"])
    network.load_state_dict(record["state_dict"])
    positions = {"obs": obs, "masks": masks, "labels": labels}
    stats = distill.fit(network, positions, epochs=60, minibatch=32, learning_rate=3e-3, seed=0)
    assert stats["agreement"] > stats["agreement_before"] + 0.2
    assert stats["cross_entropy"] < stats["cross_entropy_before"]
    with torch.no_grad():
        logits = network(torch.as_tensor(obs)).numpy()
    logits[~masks] = -np.inf
    assert (logits.argmax(axis=1) == labels).mean() == pytest.approx(stats["agreement"])


def test_a_widened_student_plays_as_before_and_a_narrower_one_is_refused():
    record = read(MIX)
    student, hidden = distill._student_network(record, None)
    wider, wider_hidden = distill._student_network(record, "256,192")
    assert hidden == list(record["hidden"]) and wider_hidden == [256, 192]
    state = engine.init(RULES, 4, 32, seed=2)
    obs = torch.as_tensor(observe(state, state.current_player.astype(np.intp)))
    with torch.no_grad():
        torch.testing.assert_close(wider(obs), student(obs), rtol=1e-5, atol=1e-5)
    for widths in ("64,64", "256", "256,256,256", "wide,256"):
        with pytest.raises(distill.DistillError, match="none narrower"):
            distill._student_network(record, widths)


def test_value_positions_carry_every_legal_actions_gain():
    student = load(MIX, RULES, 3)
    teacher = load(f"search:samples=4,horizon=6,policy={MIX}", RULES, 3, seed=2)
    positions = distill.collect(student, teacher, load("expert", RULES, 3), RULES, 3,
                                batch=12, decisions=60, seed=4, values=True)  # fmt: skip
    masks, gain, error = positions["masks"], positions["gain"], positions["error"]
    assert gain.shape == error.shape == masks.shape and gain.dtype == np.float32
    assert (gain[~masks] == 0).all() and (error >= 0).all()
    rows = np.arange(masks.shape[0])
    # the teacher's baseline is the student's own play: its gain is 0 by definition
    assert (gain[rows, positions["own"]] == 0).all()
    assert masks[rows, positions["labels"]].all()


def soft_positions(seed: int = 3) -> tuple[dict[str, np.ndarray], torch.nn.Module]:
    """Positions whose gains favour one random legal action per position, and the
    archived mixed-count network to fit to them."""
    state = engine.init(RULES, 2, 64, seed=seed)
    obs = observe(state, state.current_player.astype(np.intp))
    masks = engine.legal_mask(state) != 0
    keep = masks.sum(axis=1) > 1
    obs, masks = obs[keep], masks[keep]
    generator = np.random.default_rng(0)
    favoured = np.array([generator.choice(np.flatnonzero(mask)) for mask in masks])
    gain = np.zeros(masks.shape, np.float32)
    gain[np.arange(len(favoured)), favoured] = 0.2
    record = read(MIX)
    network = build_network(record["obs_size"], record["hidden"], record["num_actions"])
    network.load_state_dict(record["state_dict"])
    positions = {"obs": obs, "masks": masks, "labels": favoured, "gain": gain}
    return positions, network


def test_a_soft_fit_moves_the_policy_as_far_as_the_gains_say():
    positions, network = soft_positions()
    favoured = positions["labels"]
    # a cool temperature: the favoured action dominates the target, and the fit learns it
    stats = distill.fit(network, positions, epochs=60, minibatch=32, learning_rate=3e-3,
                        seed=0, temperature=0.001)  # fmt: skip
    assert stats["agreement"] > stats["agreement_before"] + 0.2
    with torch.no_grad():
        logits = network(torch.as_tensor(positions["obs"])).numpy()
    logits[~positions["masks"]] = -np.inf
    assert (logits.argmax(axis=1) == favoured).mean() == pytest.approx(stats["agreement"])
    # a hot one: the gains vanish, the target is the policy itself and its choices stay
    positions, network = soft_positions()
    stats = distill.fit(network, positions, epochs=10, minibatch=32, learning_rate=3e-3,
                        seed=0, temperature=1e6)  # fmt: skip
    assert stats["agreement_before"] == 1.0 and stats["agreement"] > 0.95
    assert stats["cross_entropy"] < stats["cross_entropy_before"] + 0.05  # at its minimum


def test_a_soft_fit_needs_positions_with_gains():
    positions, network = soft_positions()
    del positions["gain"]
    with pytest.raises(distill.DistillError, match="--targets values"):
        distill.fit(network, positions, 1, 32, 1e-3, 0, temperature=0.1)


def test_the_command_end_to_end(tmp_path, capsys):
    out = tmp_path / "run"
    code = distill.main(["--policy", MIX, "--teacher", "search:samples=2",
                         "--players", "2,3", "--decisions", "40", "--batch", "16",
                         "--epochs", "1", "--out", str(out)])  # fmt: skip
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["players"] == [2, 3] and summary["positions"] >= 80
    assert summary["teacher"] == "search:samples=2"
    stored = np.load(out / "positions.npz")
    assert set(np.unique(stored["players"])) == {2, 3}
    for players in (2, 3, 6):  # every count the student claims, not only the distilled ones
        agent = load(str(out / "policy.pt"), RULES, players)
        state = engine.init(RULES, players, 8, seed=players)
        masks = engine.legal_mask(state)
        actions = agent.act(observe(state, state.current_player.astype(np.intp)), masks)
        assert masks[np.arange(8), actions].all()
    # a second fit from the stored positions, without the teacher
    again = tmp_path / "again"
    code = distill.main(["--policy", MIX, "--positions", str(out / "positions.npz"),
                         "--epochs", "1", "--out", str(again)])  # fmt: skip
    assert code == 0 and (again / "policy.pt").exists()


def test_the_command_with_action_values(tmp_path):
    out = tmp_path / "values"
    code = distill.main(["--policy", MIX, "--teacher", "search:samples=2",
                         "--targets", "values", "--temperature", "0.05", "--players", "3",
                         "--decisions", "30", "--batch", "12", "--epochs", "1",
                         "--out", str(out)])  # fmt: skip
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["temperature"] == 0.05 and summary["positions"] >= 30
    assert agent_has_critic(out / "policy.pt") is False  # the archived mixed policy ships none
    # --claim: the file serves the table it was distilled at, and no other
    claimed = tmp_path / "claimed"
    code = distill.main(["--policy", MIX, "--positions", str(out / "positions.npz"),
                         "--claim", "3", "--epochs", "1", "--out", str(claimed)])  # fmt: skip
    assert code == 0
    summary = json.loads((claimed / "summary.json").read_text())
    assert summary["claims"] == [3] and summary["players"] == [3]  # what the positions hold
    assert summary["teacher"] == "the --positions files"
    assert read(claimed / "policy.pt")["players"] == [3]
    with pytest.raises(AgentError, match="4"):
        load(str(claimed / "policy.pt"), RULES, 4)
    stored = np.load(out / "positions.npz")
    assert stored["gain"].shape == stored["masks"].shape
    agent = load(str(out / "policy.pt"), RULES, 3)
    state = engine.init(RULES, 3, 8, seed=1)
    masks = engine.legal_mask(state)
    actions = agent.act(observe(state, state.current_player.astype(np.intp)), masks)
    assert masks[np.arange(8), actions].all()


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--policy", "{tmp}/nowhere.pt"], ["nowhere.pt"]),
        (["--policy", MIX, "--players", "4,x"], ["'x' is not a player count", "3,4"]),
        (["--policy", MIX, "--players", "7"], ["players: 7", "allowed: 2..6"]),
        (["--policy", MIX, "--claim", "6,six"], ["--claim: 'six' is not a player"]),
        (["--policy", MIX, "--claim", "8"], ["players: 8", "allowed: 2..6"]),
        (["--policy", MIX, "--temperature", "0.1"], ["--targets values", "--positions"]),
        (["--policy", "ppo-classic-2p-long", "--players", "4"], ["ppo-classic-2p-long", "4"]),
        (["--policy", MIX, "--teacher", "oracle"], ["unknown agent 'oracle'"]),
        (["--policy", MIX, "--positions", "{tmp}/none.npz"], ["none.npz", "allowed"]),
        (["--policy", MIX, "--positions", "{tmp}/bad.npz"], ["no obs, masks", "allowed"]),
        (["--policy", MIX, "--positions", "{tmp}/text.npz"], ["text.npz", "allowed"]),
        (
            ["--policy", MIX, "--teacher", "expert", "--targets", "values"],
            ["--targets values needs a search teacher", "'expert'"],
        ),
        (
            ["--policy", MIX, "--positions", "{tmp}/labels.npz", "--temperature", "0.1"],
            ["needs positions labelled with action values", "--targets values"],
        ),
    ],
)
def test_bad_input_is_refused_by_name_and_writes_nothing(tmp_path, capsys, argv, words):
    np.savez(tmp_path / "bad.npz", labels=np.zeros(3))
    (tmp_path / "text.npz").write_text("not an archive")
    state = engine.init(RULES, 2, 4, seed=0)
    np.savez(tmp_path / "labels.npz", obs=observe(state, state.current_player.astype(np.intp)),
             masks=engine.legal_mask(state) != 0, labels=np.zeros(4, np.int64),
             own=np.zeros(4, np.int64))  # fmt: skip
    out = tmp_path / "run"
    argv = [item.replace("{tmp}", str(tmp_path)) for item in argv]
    assert distill.main([*argv, "--decisions", "8", "--out", str(out)]) == 2
    message = capsys.readouterr().err
    assert message.startswith("python train/distill.py: error: ") and message.count("\n") == 1
    for word in words:
        assert word in message, message
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize(
    ("argv", "allowed"),
    [(["--decisions", "0"], "allowed: an integer >= 1"),
     (["--temperature", "0"], "allowed: a number > 0"),
     (["--threads", "0"], "allowed: an integer >= 1"),
     (["--temperature", "warm"], "'warm' is not a number; allowed: a number > 0")],
)  # fmt: skip
def test_a_bad_number_is_refused_by_the_parser(tmp_path, capsys, argv, allowed):
    with pytest.raises(SystemExit) as stopped:
        distill.main(["--policy", MIX, *argv, "--out", str(tmp_path)])
    assert stopped.value.code == 2
    assert allowed in capsys.readouterr().err


def stop_distill(argv: list[str], signum: int, ready: Callable[[Popen[str]], str]) -> Stopped:
    """Run ``python train/distill.py ARGV``, wait for ``ready`` (reading its output), send
    ``signum``: how it ended."""
    script = Path(distill.__file__)
    command = [sys.executable, str(script), *argv]
    return stop_when_ready(command, signum, ready, cwd=script.parents[1])


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_leaves_no_traceback_and_no_file(tmp_path, stop):
    out = tmp_path / "run"

    def labelling(process: Popen[str]) -> str:
        line = process.stdout.readline()
        assert "labelling 10000000 positions" in line, line
        return line

    argv = ["--policy", MIX, "--players", "3", "--decisions", "10000000", "--out", str(out)]
    run = stop_distill(argv, stop, labelling)
    assert_stopped(run)
    assert run.stderr.strip().endswith(f"stopped by {stop_name(stop)}: nothing written")
    assert not out.exists()


def test_an_out_folder_holding_another_distillation_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "policy.pt").write_bytes(b"an earlier distillation")
    assert distill.main(["--policy", MIX, "--decisions", "8", "--out", str(out)]) == 2
    message = capsys.readouterr().err
    assert message.count("\n") == 1 and "holds another distillation (policy.pt)" in message
    assert "give another --out, or add --overwrite" in message
    assert (out / "policy.pt").read_bytes() == b"an earlier distillation"


@pytest.mark.slow
def test_a_stop_during_the_fit_keeps_the_positions_labelled_as_a_partial_result(tmp_path):
    out = tmp_path / "run"

    def fitting(process: Popen[str]) -> str:
        lines = process.stdout.readline() + process.stdout.readline()  # labelling, labelled
        assert "positions in" in lines, lines
        deadline = time.monotonic() + 60
        while not (out / "positions.npz").exists() and time.monotonic() < deadline:
            time.sleep(0.1)  # written whole (renamed into place): the fit begins
        return lines

    argv = ["--policy", MIX, "--players", "3", "--teacher", "expert", "--decisions", "2000",
            "--epochs", "1000000", "--out", str(out)]  # fmt: skip
    run = stop_distill(argv, signal.SIGINT, fitting)
    assert_stopped(run)
    assert run.stderr.strip() == (
        f"python train/distill.py: stopped by Ctrl-C: partial result: {out / 'positions.npz'} "
        f"is kept (the labelled positions; fit them with --positions {out / 'positions.npz'}); "
        "policy.pt not written"
    )
    assert sorted(path.name for path in out.iterdir()) == ["positions.npz"]


def agent_has_critic(path: Path) -> bool:
    return getattr(load(str(path), RULES, 4), "value_network", None) is not None


def test_the_students_critic_stays_with_it_unless_it_is_widened(tmp_path):
    """A student shipped with its critic keeps it (a search can still value rollouts with
    it); a widened student has no critic of its widths, so its file has none."""
    stored = tmp_path / "positions.npz"
    assert distill.main(["--policy", "ppo-classic-first", "--teacher", "expert", "--players",
                         "4", "--decisions", "20", "--batch", "8", "--epochs", "1",
                         "--out", str(tmp_path / "labels")]) == 0  # fmt: skip
    (tmp_path / "labels" / "positions.npz").rename(stored)
    for hidden, kept in ((None, True), ("192,160", False)):
        out = tmp_path / f"fit-{hidden}"
        argv = ["--policy", "ppo-classic-first", "--positions", str(stored), "--epochs", "1"]
        assert distill.main([*argv, *(["--hidden", hidden] if hidden else []),
                             "--out", str(out)]) == 0  # fmt: skip
        assert agent_has_critic(out / "policy.pt") is kept
        own = read(SHIPPED["ppo-classic-first"])["hidden"]
        assert read(out / "policy.pt")["hidden"] == (own if kept else [192, 160])
