"""One policy at several player counts (``players_mix``, ``players_weights``:
train/ppo_parts/tables.py) and the warm start from a policy
(``warm_start=ppo-classic-first`` or a policy file: train/ppo_parts/imitation.py's
``teacher_of``).

The split of ``num_envs`` among the counts, each group's games seating its count, one
rollout's rows coming from the right group, a tiny mixed run end to end (an evaluation row
per count, the summary, a policy that loads at each count and is refused at others), exact
resume of a mixed run in both modes, the config errors before torch works, and a warm
start whose actor is the policy file while the critic learns."""

from __future__ import annotations

import copy
import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="needs torch (pip install -e '.[train]')")

import torch

from agents import AgentError, load
from sto_odno_env import Rules
from sto_odno_env.bots.checkpoint import CheckpointError, read, save_policy
from sto_odno_env.bots.registry import SHIPPED
from sto_odno_env.envs.gym_env import StoOdnoVectorEnv
from sto_odno_env.game.rules import MAX_PLAYERS
from sto_odno_env.views.observation import layout
from tests.support.training import TINY, tiny_run, tiny_session
from train import ppo, rllib_ppo, sb3_ppo
from train.config import load_config
from train.config_keys import ConfigError
from train.ppo_parts.masked import make_networks
from train.ppo_parts.tables import counts_and_sizes
from train.run.command_line import parse
from train.run.console import Console
from train.run.session import main

ROOT = Path(__file__).resolve().parent.parent
MIX = ["players_mix=[2,3,4]", "players_weights=[2,1,1]"]  # TINY's 16 games: 8, 4 and 4
QUICK = [*TINY, "warm_start=none"]
STEPS = 16 * 8  # one update of TINY's


def mixed_trainer(out: Path, *extra: str) -> ppo.PPO:
    """A trainer of QUICK with MIX, built but not run."""
    return ppo.PPO(parse(ppo.SPEC, [*QUICK, *MIX, "--out", str(out), *extra]))


def split(num_envs: int, *items: str) -> list[tuple[int, int]]:
    return counts_and_sizes(load_config(None, {"num_envs": num_envs}, list(items)))


def training(path: Path) -> dict:
    return torch.load(path, weights_only=True)["training"]


def assert_same_weights(a: ppo.PPO, b: ppo.PPO) -> None:
    for part in ("actor", "critic"):
        left, right = getattr(a.agent, part).state_dict(), getattr(b.agent, part).state_dict()
        for name, weight in left.items():
            assert torch.equal(weight, right[name]), (part, name)


# --- the split of the games ----------------------------------------------------------------------


def test_num_envs_is_split_by_the_weights_with_the_remainder_to_the_largest_shares():
    weights = "players_weights=[2,1,1]"
    assert split(16, "players_mix=[2,3,4]", weights) == [(2, 8), (3, 4), (4, 4)]
    # 5, 2.5, 2.5: the one left over goes to the earlier of the equal fractions
    assert split(10, "players_mix=[2,3,4]", weights) == [(2, 5), (3, 3), (4, 2)]
    # 4.2, 1.4, 1.4: to the largest fraction, not the largest weight
    assert split(7, "players_mix=[2,3,4]", "players_weights=[3,1,1]") == [(2, 4), (3, 2), (4, 1)]
    assert split(10, "players_mix=[6,2,3]") == [(6, 4), (2, 3), (3, 3)]  # [] is equal shares
    assert split(12, "players=4") == [(4, 12)]  # no mix: every game seats players
    with pytest.raises(ConfigError, match=r"gives no game to \[3\] players"):
        split(10, "players_mix=[3,5]", "players_weights=[0,1]")
    for num_envs in range(10, 60):  # from 10 the smallest share, a tenth, has a game
        sizes = split(num_envs, "players_mix=[2,3,4,6]", "players_weights=[5,1,2.5,1.5]")
        exact = np.array([5, 1, 2.5, 1.5]) * num_envs / 10
        assert [c for c, _ in sizes] == [2, 3, 4, 6]
        assert sum(s for _, s in sizes) == num_envs
        assert np.all(np.abs(np.array([s for _, s in sizes]) - exact) < 1), (num_envs, sizes)


def test_each_group_seats_its_count_and_a_rollout_stores_its_rows_in_its_slice(tmp_path):
    trainer = mixed_trainer(tmp_path)
    groups = trainer.tables.groups
    assert [(g.players, g.rows.start, g.rows.stop) for g in groups] == [
        (2, 0, 8), (3, 8, 12), (4, 12, 16)
    ]  # fmt: skip
    for group in groups:
        size = group.rows.stop - group.rows.start
        assert group.games.players == group.games.state.players == group.players
        assert group.games.batch == size and group.league.players == group.players
        assert group.league.assign.shape == (size, group.players - 1)  # its opponent seats
    assert trainer.tables.counts == [2, 3, 4]
    trainer.rollout()  # the games raise on an illegal move: each group got legal actions
    columns = layout(trainer.rules)
    count = trainer.obs[:, :, columns["num_players"].start] * MAX_PLAYERS
    others_in = trainer.obs[:, :, columns["others_in"]]
    for group in groups:
        rows = group.rows
        assert torch.allclose(count[:, rows], torch.full_like(count[:, rows], group.players))
        # seats beyond the count are never in the match; at the first step all others are
        assert not others_in[:, rows, group.players - 1 :].any()
        assert bool((others_in[0, rows, : group.players - 1] == 1).all())
        assert np.array_equal(trainer.next_obs[rows], group.games.observe())


# --- a mixed run end to end ----------------------------------------------------------------------


def test_a_mixed_run_evaluates_each_count_and_its_policy_plays_each_count(tmp_path):
    _, session = tiny_session(tmp_path, STEPS * 2, *MIX)  # with TINY's expert warm start
    assert session.counters.update == 2 and session.counters.global_step == STEPS * 2
    with open(tmp_path / "evaluations.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    # one evaluation after the warm start, one at the end, each a row per count
    assert [int(r["update"]) for r in rows] == [0, 0, 0, 2, 2, 2]
    assert [int(r["players"]) for r in rows] == [2, 3, 4] * 2
    assert [r["opponent"] for r in rows] == ["expert", "2xexpert", "3xexpert"] * 2
    assert [int(r["matches"]) for r in rows] == [20, 18, 20] * 2  # whole deals of 20
    summary = json.loads((tmp_path / "summary.json").read_text())
    latest = summary["latest_evaluation"]
    assert isinstance(latest, list) and [r["players"] for r in latest] == [2, 3, 4]
    assert {r["update"] for r in latest} == {2}
    assert [r["rate"] for r in latest] == [float(r["rate"]) for r in rows[3:]]
    # best.pt: the evaluation of the highest mean rate above par, the first of equal ones
    scores = [
        np.mean([float(r["rate"]) - 1 / int(r["players"]) for r in rows[i : i + 3]]) for i in (0, 3)
    ]
    best_update = (0, 2)[int(np.argmax(scores))]
    assert {r["update"] for r in summary["best_evaluation"]} == {best_update}
    for name in ("policy.pt", "best.pt", "checkpoint.pt"):
        assert torch.load(tmp_path / name, weights_only=True)["players"] == [2, 3, 4], name
    path = str(tmp_path / "policy.pt")
    for players in (2, 3, 4):
        agent = load(path, "classic", players)
        env = StoOdnoVectorEnv(num_envs=4, players=players, opponents=agent)
        observations, infos = env.reset(seed=players)
        for _ in range(30):  # the policy in every seat: an illegal move would raise
            observations, _, _, _, infos = env.step(agent.act(observations, infos["action_mask"]))
    with pytest.raises(AgentError, match="trained for 2/3/4 players, not 5"):
        load(path, "classic", 5)


def test_a_mixed_checkpoint_holds_each_counts_games_and_refuses_another_mix(tmp_path, capsys):
    tiny_run(tmp_path, STEPS, *MIX, "warm_start=none")
    saved = training(tmp_path / "checkpoint.pt")
    assert isinstance(saved["league"], list) and isinstance(saved["games"], list)
    assert len(saved["league"]) == len(saved["games"]) == 3
    assert [tuple(league["assign"].shape) for league in saved["league"]] == [(8, 1), (4, 2), (4, 3)]
    argv = ["--resume", str(tmp_path / "checkpoint.pt"), "--total-steps", str(STEPS * 2)]
    assert ppo.main([*argv, "players_mix=[2,3]", "players_weights=[]"]) == 2
    error = capsys.readouterr().err
    assert "trained with players_mix=[2, 3, 4]; this run has players_mix=[2, 3]" in error


# --- exact resume ----------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("overlap", ["false", "true"])
def test_a_mixed_run_resumes_exactly(tmp_path, overlap):
    extra = (*MIX, "warm_start=none", f"overlap={overlap}")
    straight = tiny_run(tmp_path / "straight", STEPS * 4, *extra)
    tiny_run(tmp_path / "split", STEPS * 2, *extra)
    checkpoint = tmp_path / "split" / "checkpoint.pt"
    resumed, session = tiny_session(tmp_path / "split", STEPS * 4, *extra, resume=checkpoint)
    assert session.counters.update == 4
    assert_same_weights(straight, resumed)
    # the play state as saved (overlapped, the collector process holds it, not the learner)
    a = training(tmp_path / "straight" / "checkpoint.pt")
    b = training(tmp_path / "split" / "checkpoint.pt")
    assert len(a["league"]) == len(b["league"]) == len(a["games"]) == 3
    for players, left, right in zip((2, 3, 4), a["league"], b["league"], strict=True):
        assert torch.equal(left["assign"], right["assign"]), players
        assert left["snapshot_updates"] == right["snapshot_updates"], players
    for players, left, right in zip((2, 3, 4), a["games"], b["games"], strict=True):
        for name in left:  # the games in progress
            assert torch.equal(left[name]["bytes"], right[name]["bytes"]), (players, name)
    assert torch.equal(a["member_games"], b["member_games"])
    assert torch.equal(a["generator"], b["generator"])


# --- config errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["players_mix=[2,3,2]"], "players_mix=[2, 3, 2] is not allowed; allowed: [] (players"),
        (
            ["players_mix=[2,7]"],
            "rules 'classic' do not allow [7] players; allowed: counts in 2..6",
        ),
        (
            ["players_mix=[2,3,4]", "players_weights=[1,1]"],
            "players_weights has 2 weights for the 3 counts of players_mix [2, 3, 4]; "
            "allowed: one weight per count",
        ),
        (["players_weights=[1]"], "players_weights=[1] needs players_mix"),
        (
            ["players_mix=[2,3]", "players_weights=[0,0]"],
            "players_weights=[0, 0] is not allowed; allowed: weights >= 0 with at least one > 0",
        ),
        (["players_mix=[2,3]", "players_weights=[1,-1]"], "one number >= 0 per count"),
        (
            ["players_mix=[2,3,4]", "--num-envs", "2"],
            "num_envs=2 split by players_weights gives no game to [4] players; allowed:",
        ),
        (
            ["players_mix=[2,5]", "--rules", "nines"],
            "players_mix=[2, 5]: rules 'nines' do not allow [5] players; allowed: counts in 2..4",
        ),
        (["warm_start=ppo-nosuch"], "warm_start='ppo-nosuch' is not allowed; allowed: none,"),
    ],
)
def test_bad_mixes_are_refused_on_the_command_line_before_the_trainer(
    tmp_path, argv, message, capsys
):
    out = tmp_path / "run"
    assert ppo.main([*argv, "--out", str(out), "--no-progress"]) == 2
    printed = capsys.readouterr()
    assert printed.err.startswith("error: ") and message in printed.err, printed.err
    assert "set-up" not in printed.out and not out.exists()  # before torch and the trainer


def test_a_bad_split_fails_before_torch_loads():
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "train/ppo.py", "players_mix=[2,3]",
         "players_weights=[1,0]", "--out", "/tmp/unused-sto-odno"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "gives no game to [3] players" in done.stderr
    imported = [line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line]
    assert "train.ppo_parts.tables" in imported
    assert not [module for module in imported if module.startswith("torch")]
    assert "Traceback" not in done.stderr and "set-up" not in done.stdout


@pytest.mark.parametrize("spec", [sb3_ppo.SPEC, rllib_ppo.SPEC], ids=["sb3", "rllib"])
@pytest.mark.parametrize("item", ["players_mix=[2,3]", "players_weights=[1]"])
def test_the_other_trainers_refuse_a_mix(spec, item, capsys):
    with pytest.raises(ConfigError, match=f"is not implemented by {spec.prog}; allowed here: "):
        parse(spec, [item, "--out", "/tmp/unused-sto-odno"])
    assert main(spec, [item, "--out", "/tmp/unused-sto-odno"]) == 2
    assert item.split("=")[0] in capsys.readouterr().err
    parse(spec, ["--out", "/tmp/unused-sto-odno"])  # without one they parse


# --- the warm start from a policy -------------------------------------------------------------


def warm_started(out: Path, *extra: str) -> tuple[ppo.PPO, dict, dict[str, torch.Tensor]]:
    """A trainer of QUICK and ``extra`` after its warm start: the trainer, the warm
    start's statistics and the critic before it."""
    # few games, long enough for matches to end: the critic learns the ended ones' returns
    argv = [*QUICK, "--num-envs", "4", "minibatch_size=32", "warm_start_decisions=2048"]
    argv += ["--out", str(out), *extra]
    trainer = ppo.PPO(parse(ppo.SPEC, argv))
    critic = copy.deepcopy(trainer.agent.critic.state_dict())
    stats = trainer.warm_start(Console(False))
    return trainer, stats, critic


def assert_actor_is(trainer: ppo.PPO, policy: dict, critic: dict) -> None:
    actor = trainer.agent.actor.state_dict()
    assert actor.keys() == policy["state_dict"].keys()
    for name, weight in policy["state_dict"].items():
        assert torch.equal(actor[name], weight), name
    after = trainer.agent.critic.state_dict()
    assert any(not torch.equal(after[name], critic[name]) for name in critic), "critic unmoved"


def test_a_warm_start_from_a_shipped_policy_takes_its_weights_at_each_count(tmp_path):
    trainer, stats, critic = warm_started(
        tmp_path, "hidden=[128,128]", "warm_start=ppo-classic-first", "players_mix=[2,4]"
    )
    assert_actor_is(trainer, read(SHIPPED["ppo-classic-first"]), critic)
    assert stats["agreement"] == 1.0  # the teacher's moves are the actor's own


def test_a_warm_start_from_a_policy_file_works_for_another_preset_of_its_sizes(tmp_path):
    actor, _ = make_networks(189, [16], 42)
    path = tmp_path / "classic.pt"
    save_policy(path, actor, [16], Rules.preset("classic").to_dict(), [2])
    trainer, stats, critic = warm_started(tmp_path / "run", "--rules", "yard", f"warm_start={path}")
    assert trainer.rules.name == "yard"
    assert_actor_is(trainer, read(path), critic)
    assert stats["agreement"] == 1.0


def test_a_warm_start_from_a_narrower_policy_widens_it_keeping_its_play(tmp_path):
    narrow, _ = make_networks(189, [16, 8], 42)
    path = tmp_path / "narrow.pt"
    save_policy(path, narrow, [16, 8], Rules.preset("classic").to_dict(), [2])
    trainer, stats, _ = warm_started(tmp_path / "run", "hidden=[32,24]", f"warm_start={path}")
    wide = trainer.agent.actor
    widths = [layer.out_features for layer in wide if isinstance(layer, torch.nn.Linear)]
    assert widths == [32, 24, 42]
    observations = torch.randn(256, 189, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        assert torch.allclose(wide(observations), narrow(observations), atol=1e-6)
    # the new units are live: their incoming weights are not all zero
    assert wide[0].weight[16:].abs().sum() > 0
    assert stats["agreement"] == 1.0


def test_a_warm_start_from_a_wider_or_deeper_policy_is_refused(tmp_path):
    with pytest.raises(CheckpointError, match=r"or wider at the same depth"):
        warm_started(tmp_path, "hidden=[64,64]", "warm_start=ppo-classic-first")
    with pytest.raises(CheckpointError, match=r"this run's has 189 and \[256, 256, 256\]"):
        warm_started(tmp_path / "deep", "hidden=[256,256,256]", "warm_start=ppo-classic-first")


def test_a_warm_start_from_a_policy_of_other_widths_is_refused_naming_them(tmp_path, capsys):
    with pytest.raises(
        CheckpointError, match=r"widths \[128, 128\]; this run's has 189 and \[64\]"
    ):
        warm_started(tmp_path, "hidden=[64]", "warm_start=ppo-classic-first")
    out = tmp_path / "cli"
    argv = [
        *QUICK,
        "hidden=[64]",
        "warm_start=ppo-classic-first",
        "--out",
        str(out),
        "--no-progress",
    ]
    assert ppo.main(argv) == 2
    error = capsys.readouterr().err
    assert "widths [128, 128]" in error and "set hidden to the policy's widths" in error
    assert "Traceback" not in error


# --- checkpoints of one count --------------------------------------------------------------------


def test_a_run_of_one_count_saves_its_games_as_before_the_mix(tmp_path):
    trainer = tiny_run(tmp_path, STEPS, "warm_start=none")
    assert trainer.tables.counts == [2]
    saved = training(tmp_path / "checkpoint.pt")
    assert isinstance(saved["league"], dict) and isinstance(saved["games"], dict)
    assert tuple(saved["league"]["assign"].shape) == (16, 1)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert isinstance(summary["latest_evaluation"], dict)  # one count: one row, as before
    resumed, session = tiny_session(tmp_path, STEPS * 2, resume=tmp_path / "checkpoint.pt")
    assert session.counters.update == 2 and resumed.tables.counts == [2]


def test_plot_curves_draws_one_curve_per_count_of_a_mixed_run(tmp_path):
    """A mixed run's evaluations.csv interleaves the counts: each is its own curve."""
    from train import plot_curves

    run = tmp_path / "run"
    run.mkdir()
    header = "update,step,minutes,opponent,matches,rate,low,high,mean_reward,players\n"
    rows = [
        "0,0,0.5,expert,20,0.6,0.4,0.8,0.1,2",
        "0,0,0.5,3xexpert,20,0.3,0.1,0.5,0.0,4",
        "5,640,1.0,expert,20,0.7,0.5,0.9,0.2,2",
        "5,640,1.0,3xexpert,20,0.35,0.2,0.6,0.1,4",
    ]
    (run / "evaluations.csv").write_text(header + "\n".join(rows) + "\n")
    curves = plot_curves.read_curves(run)
    assert sorted(curves) == [2, 4]
    assert curves[2]["rate"] == [0.6, 0.7] and curves[4]["step"] == [0.0, 640.0]
    assert plot_curves.main([str(run), "--out", str(tmp_path / "c")]) == 0
    assert (tmp_path / "c_steps.png").stat().st_size > 0
