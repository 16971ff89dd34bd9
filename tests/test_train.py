"""The trainer (``train/ppo.py``, ``train/sb3_ppo.py``): a tiny end-to-end run (train,
checkpoint, reload, resume exactly, evaluate), masks in sampling and in the update, config
errors, checkpoint errors, and the shipped policies playing legal moves in every env."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import AgentError, load
from agents.checkpoint import CheckpointError, save_policy
from agents.checkpoint import load as load_checkpoint
from agents.registry import SHIPPED
from sto_odno_env import Rules, sto_odno_v0
from sto_odno_env.gym_env import StoOdnoVectorEnv
from train import ppo
from train.config import ConfigError, load_config
from train.masked import entropy, log_probs, make_networks, sample

ROOT = Path(__file__).resolve().parent.parent
TINY = [
    "--num-envs", "16", "rollout_steps=8", "epochs=2", "minibatch_size=64", "hidden=[16]",
    "eval_matches=20", "league.snapshot_every=1", "league.max_snapshots=2",
    "league.random=0.2", "warm_start_decisions=1024", "warm_start_epochs=1",
]  # fmt: skip


def tiny_run(out: Path, steps: int, *extra: str, resume: Path | None = None) -> ppo.Trainer:
    argv = [*TINY, "--out", str(out), "--total-steps", str(steps), "--no-progress", *extra]
    if resume is not None:
        argv += ["--resume", str(resume)]
    trainer, args = ppo.prepare(argv)
    ppo.run(trainer, args)
    return trainer


# --- masks --------------------------------------------------------------------------------------


def test_sampling_never_picks_an_illegal_action_and_reports_masked_log_probs():
    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(4096, 42) * 5
    logits[:, 40] = 50.0  # the most likely action by far, but illegal in every row
    masks = torch.rand(4096, 42) < 0.2
    masks[:, 40] = False
    masks[torch.arange(4096), torch.randint(0, 40, (4096,))] = True
    actions, logp = sample(logits, masks, generator)
    assert masks[torch.arange(4096), actions].all()
    expected = torch.log_softmax(logits.masked_fill(~masks, -math.inf), 1)
    assert torch.allclose(logp, expected[torch.arange(4096), actions], atol=1e-5)


def test_masked_entropy_counts_legal_actions_only_and_illegal_logits_get_no_gradient():
    logits = torch.zeros(3, 42, requires_grad=True)
    masks = torch.zeros(3, 42, dtype=torch.bool)
    for row, legal in enumerate((1, 2, 7)):
        masks[row, :legal] = True
    logp = log_probs(logits, masks)
    spread = entropy(logp, masks)
    assert torch.allclose(spread, torch.log(torch.tensor([1.0, 2.0, 7.0])), atol=1e-6)
    (logp[:, 0].sum() + spread.sum()).backward()
    assert torch.count_nonzero(logits.grad[~masks]) == 0
    assert torch.count_nonzero(logits.grad[1, :2]) == 2


# --- a tiny run end to end -----------------------------------------------------------------------


def test_tiny_run_trains_checkpoints_reloads_and_plays_legally(tmp_path):
    trainer = tiny_run(tmp_path, 16 * 8 * 3)
    assert trainer.update == 3 and trainer.global_step == 384
    assert trainer.league.filled == 2  # a snapshot every update, two slots
    for name in ("checkpoint.pt", "policy.pt", "best.pt", "evaluations.csv", "summary.json"):
        assert (tmp_path / name).is_file(), name
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["learner_steps"] == 384
    assert 0.0 <= summary["latest_evaluation"]["rate"] <= 1.0
    assert list((tmp_path / "tb").iterdir()), "no TensorBoard events"
    for file in ("checkpoint.pt", "policy.pt"):
        agent = load(str(tmp_path / file), "classic", 2)
        env = StoOdnoVectorEnv(num_envs=32, opponents=agent)
        observations, infos = env.reset(seed=3)
        for _ in range(50):  # the loaded policy on both sides: illegal moves would raise
            actions = agent.act(observations, infos["action_mask"])
            observations, _, _, _, infos = env.step(actions)


def test_resume_continues_the_run_exactly(tmp_path):
    straight = tiny_run(tmp_path / "straight", 16 * 8 * 4)
    tiny_run(tmp_path / "split", 16 * 8 * 2)
    resumed = tiny_run(tmp_path / "split", 16 * 8 * 4, resume=tmp_path / "split" / "checkpoint.pt")
    assert resumed.update == straight.update == 4
    assert resumed.global_step == straight.global_step
    for name, weight in straight.actor.state_dict().items():
        assert torch.equal(weight, resumed.actor.state_dict()[name]), name
    for name, weight in straight.critic.state_dict().items():
        assert torch.equal(weight, resumed.critic.state_dict()[name]), name
    assert np.array_equal(straight.league.assign, resumed.league.assign)
    assert np.array_equal(straight.observations, resumed.observations)


def test_a_run_never_sends_an_illegal_action():
    # The games are built with illegal_action="raise": one illegal learner or league move
    # anywhere in the run would raise IllegalActionError out of collect().
    trainer, _ = ppo.prepare([*TINY, "--out", "/tmp/unused-sto-odno", "--players", "3"])
    assert trainer.games.illegal_action == "raise"
    for _ in range(3):
        trainer.learn(trainer.collect())
    assert trainer.global_step == 3 * 16 * 8


def test_self_play_games_train_every_seat_and_resume_exactly(tmp_path):
    extra = ("self_play_games=8", "league.current=0")
    straight = tiny_run(tmp_path / "straight", 24 * 8 * 3, *extra)
    assert straight.global_step == 24 * 8 * 3  # 16 league games + 8 self-play games
    tiny_run(tmp_path / "split", 24 * 8 * 2, *extra)
    resumed = tiny_run(
        tmp_path / "split", 24 * 8 * 3, *extra, resume=tmp_path / "split" / "checkpoint.pt"
    )
    for name, weight in straight.actor.state_dict().items():
        assert torch.equal(weight, resumed.actor.state_dict()[name]), name
    assert np.array_equal(straight.self_play.pending, resumed.self_play.pending)
    assert torch.equal(straight.self_play.carry["obs"], resumed.self_play.carry["obs"])


def test_self_play_rows_are_the_acting_seats_legal_decisions_with_their_own_results():
    # Match rewards, gamma = lambda = 1 and a critic that says 0 everywhere: a row's return
    # is its seat's match result (+1 winner, -1 loser) once the match is over, else 0.
    from sto_odno_env.observation import LAYOUT
    from train.selfplay import SelfPlayGames

    games = SelfPlayGames(Rules.preset("classic"), 2, 32, seed=3, reward="match")
    actor, critic = make_networks(games.obs_size, [8], games.num_actions)
    for parameter in critic.parameters():
        torch.nn.init.zeros_(parameter)
    generator = torch.Generator().manual_seed(0)
    results = []
    for _ in range(4):
        rows = games.collect(actor, critic, 64, generator, torch.device("cpu"), 1.0, 1.0)
        legal = rows["masks"].gather(1, rows["actions"][:, None]).squeeze(1)
        assert bool(legal.all())
        assert bool((rows["obs"][:, LAYOUT["to_act"].start] == 1).all())  # its own move
        results.append(rows["returns"].numpy())
    returns = np.concatenate(results)
    assert set(np.unique(returns)) == {-1.0, 0.0, 1.0}


def test_self_play_gae_follows_each_seats_own_chain():
    from train.selfplay import SelfPlayGames

    # Rows 0-1: step 0 of two games; rows 2-3: step 1. Game 0: seat A moves at rows 0 and 2
    # (row 2 ends its match, reward 1); game 1: row 1 is open (no successor), row 3 too.
    values = np.array([0.5, 0.2, 0.4, 0.1], dtype=np.float32)
    reward = np.array([0.0, 0.0, 1.0, 0.0], dtype=np.float32)
    ended = np.array([False, False, True, False])
    successor = np.array([2, -1, -1, -1])
    gamma, lam = 0.9, 0.5
    advantages = SelfPlayGames._gae(values, reward, ended, successor, gamma, lam, 0, 2)
    last = 1.0 - 0.4
    assert advantages[2] == pytest.approx(last)
    assert advantages[0] == pytest.approx(0.0 + gamma * 0.4 - 0.5 + gamma * lam * last)
    assert advantages[1] == advantages[3] == 0.0  # open: trained in the next rollout


# --- config errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["bogus=1"], "unknown key 'bogus'"),
        (["learning_rate=-1"], "learning_rate=-1 is not allowed; allowed: a number > 0"),
        (["gamma=1.5"], "gamma=1.5 is not allowed; allowed: a number in [0, 1]"),
        (["hidden=[0]"], "hidden=[0] is not allowed; allowed: a list of positive integers"),
        (["epochs=2.5"], "epochs=2.5 is not allowed; allowed: an integer > 0"),
        (["anneal_lr=maybe"], "anneal_lr='maybe' is not allowed; allowed: true or false"),
        (["league.bogus=1"], "unknown key 'league.bogus'"),
        (["reward=points"], "reward='points' is not allowed; allowed: match or round"),
        (["novalue"], "override 'novalue' is not key=value"),
        (["--players", "7"], "--players: players=7 is not allowed; allowed: an integer 2..6"),
        (["--players", "two"], "--players='two' is not allowed; allowed: a int"),
        (["--device", "tpu"], "device='tpu' is not allowed; allowed: cpu, cuda or auto"),
        (["--num-envs", "0"], "num_envs=0 is not allowed; allowed: an integer > 0"),
        (["--rules", "nosuch"], "nosuch"),
        (["eval_opponent=nobody"], "unknown agent 'nobody'"),
        (["--config", "/nonexistent.yaml"], "config file '/nonexistent.yaml' does not exist"),
        (
            ["league.current=0", "league.snapshots=0", "league.expert=0", "league.greedy=0"],
            "every weight is 0",
        ),
    ],
)
def test_config_errors_name_the_key_the_value_and_what_is_allowed(argv, message, capsys):
    assert ppo.main([*argv, "--out", "/tmp/unused-sto-odno"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: ") and message in error, error


def test_config_file_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("players: [2\n")
    with pytest.raises(ConfigError, match="is not valid YAML"):
        load_config(bad)
    bad.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="must hold a mapping"):
        load_config(bad)
    bad.write_text("players: 2\n")
    with pytest.raises(ConfigError, match="missing keys"):
        load_config(bad)


def test_the_cli_reports_errors_without_a_traceback():
    done = subprocess.run(
        [sys.executable, "train/ppo.py", "gamma=2"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "gamma=2 is not allowed" in done.stderr


# --- checkpoint errors ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("policy") / "policy.pt"
    actor, _ = make_networks(189, [8], 42)
    save_policy(path, actor, [8], Rules.preset("classic").to_dict(), [2])
    return path


def test_a_checkpoint_for_other_rules_or_players_is_refused(policy_file):
    masks = np.zeros((1, 42), np.int8)
    masks[0, 7] = 1
    assert load(str(policy_file), "classic", 2).act(np.zeros((1, 189), np.float32), masks) == 7
    with pytest.raises(AgentError, match="trained for rules 'classic', not 'yard'"):
        load(str(policy_file), "yard", 2)
    with pytest.raises(AgentError, match="trained for 2 players, not 4"):
        load(str(policy_file), "classic", 4)


def test_a_checkpoint_of_another_observation_version_is_refused(policy_file, tmp_path):
    data = torch.load(policy_file, weights_only=True)
    data["observation_version"] = 99
    torch.save(data, tmp_path / "old.pt")
    with pytest.raises(CheckpointError, match="observation layout version 99"):
        load_checkpoint(tmp_path / "old.pt")


def test_truncated_corrupt_and_missing_checkpoints_are_refused(policy_file, tmp_path):
    raw = policy_file.read_bytes()
    (tmp_path / "cut.pt").write_bytes(raw[: len(raw) // 2])
    (tmp_path / "noise.pt").write_bytes(bytes(range(256)) * 10)
    for name in ("cut.pt", "noise.pt"):
        with pytest.raises(CheckpointError, match="is not a readable torch file"):
            load_checkpoint(tmp_path / name)
    with pytest.raises(CheckpointError, match="does not exist"):
        load_checkpoint(tmp_path / "absent.pt")


def test_resume_from_a_policy_file_or_another_shape_is_refused(policy_file, tmp_path, capsys):
    assert ppo.main([*TINY, "--out", str(tmp_path), "--resume", str(policy_file)]) == 2
    assert "without training state" in capsys.readouterr().err
    tiny_run(tmp_path / "run", 16 * 8)
    argv = [*TINY, "--out", str(tmp_path), "--resume", str(tmp_path / "run" / "checkpoint.pt")]
    assert ppo.main([*argv, "--num-envs", "32"]) == 2
    assert "num_envs=16; this run has num_envs=32" in capsys.readouterr().err
    assert ppo.main([*argv, "--rules", "yard"]) == 2
    assert "trained for rules 'classic', not 'yard'" in capsys.readouterr().err


def test_checkpoints_load_without_running_code(tmp_path):
    tiny_run(tmp_path, 16 * 8)
    data = torch.load(tmp_path / "checkpoint.pt", weights_only=True)  # raises on any object
    assert data["format"] == "sto-odno-policy" and data["players"] == [2]
    assert data["rules"]["name"] == "classic" and "training" in data


# --- the SB3 path ---------------------------------------------------------------------------------


def test_sb3_path_trains_and_its_zip_loads(tmp_path):
    from train import sb3_ppo

    argv = ["--out", str(tmp_path), "--total-steps", "256", "--num-envs", "16",
            "rollout_steps=16", "minibatch_size=64", "epochs=1", "eval_matches=10",
            "--opponents", "greedy"]  # fmt: skip
    assert sb3_ppo.main(argv) == 0
    agent = load(str(tmp_path / "model.zip"), "classic", 2)
    masks = np.zeros((2, 42), np.int8)
    masks[:, [3, 40]] = 1
    assert set(agent.act(np.zeros((2, 189), np.float32), masks)) <= {3, 40}


# --- the shipped policies -------------------------------------------------------------------------


def test_the_shipped_policies_are_there_and_small():
    assert {"ppo-classic-2p", "ppo-classic-4p"} <= set(SHIPPED)
    for path in SHIPPED.values():
        assert path.stat().st_size <= 5 * 2**20
        assert "training" not in torch.load(path, weights_only=True)


def play_a_match_in_the_aec_env(agent, rules: str, players: int, seed: int) -> None:
    """``agent`` in every seat of one AEC match; an illegal action raises there."""
    env = sto_odno_v0.env(rules=rules, players=players, illegal_action="raise")
    env.reset(seed=seed)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        action = None
        if not (terminated or truncated):
            action = agent(observation["observation"], observation["action_mask"])
        env.step(action)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_policies_play_legal_moves_in_the_aec_and_vector_envs(name):
    players = int(name.rsplit("-", 1)[1].rstrip("p"))
    agent = load(name, "classic", players)
    play_a_match_in_the_aec_env(agent, "classic", players, seed=5)
    vector = StoOdnoVectorEnv(num_envs=64, players=players, opponents=agent)
    observations, infos = vector.reset(seed=5)
    for _ in range(100):
        actions = agent.act(observations, infos["action_mask"])
        observations, _, _, _, infos = vector.step(actions)


@pytest.mark.parametrize(
    ("rules_file", "players", "obs_width", "actions"),
    [("deck-52.yaml", 3, 253, 58), ("last-card-call.yaml", 2, 190, 43)],
)
def test_a_run_on_a_rule_set_of_other_sizes_trains_a_policy_for_it(
    tmp_path, rules_file, players, obs_width, actions
):
    # The 52-card deck and the last-card call change the observation and action sizes:
    # the networks, the warm start and the policy file follow the rule set.
    rules_path = str(ROOT / "configs" / "rules" / "examples" / rules_file)
    trainer = tiny_run(tmp_path, 16 * 8, "--rules", rules_path, "--players", str(players))
    assert trainer.actor[0].in_features == obs_width
    assert trainer.actor[-1].out_features == actions
    agent = load(str(tmp_path / "policy.pt"), rules_path, players)
    refused = r"trained for other rules .*differ in .*(deck|last_card_call)"
    with pytest.raises(AgentError, match=refused):
        load(str(tmp_path / "policy.pt"), "classic", players)
    classic = StoOdnoVectorEnv(num_envs=2, players=players)
    observations, infos = classic.reset(seed=0)
    with pytest.raises(ValueError, match=f"takes observations of {obs_width} and {actions}"):
        load_checkpoint(tmp_path / "policy.pt").act(observations, infos["action_mask"])
    play_a_match_in_the_aec_env(agent, rules_path, players, seed=2)


def test_ship_and_plot_curves_from_a_run(tmp_path):
    from train import plot_curves, ship

    tiny_run(tmp_path / "run", 16 * 8 * 2)
    assert ship.main([str(tmp_path / "run"), "ppo-test-2p", "--dest", str(tmp_path / "ship")]) == 0
    shipped = torch.load(tmp_path / "ship" / "ppo-test-2p.pt", weights_only=True)
    assert "training" not in shipped and shipped["players"] == [2]
    assert (tmp_path / "ship" / "ppo-test-2p.yaml").is_file()
    assert json.loads((tmp_path / "ship" / "ppo-test-2p.json").read_text())["evaluations"]
    load(str(tmp_path / "ship" / "ppo-test-2p.pt"), "classic", 2)
    assert ship.main([str(tmp_path / "nowhere"), "x"]) == 2
    assert plot_curves.main([str(tmp_path / "run") + "=tiny", "--out", str(tmp_path / "c")]) == 0
    for suffix in ("steps", "minutes"):
        assert (tmp_path / f"c_{suffix}.png").stat().st_size > 1000
