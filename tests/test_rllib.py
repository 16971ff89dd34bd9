"""train/rllib_ppo.py: RLlib PPO over the batched vector env (the ``dist`` extra).

A local run with two env runners (the env raises on an illegal action, so finishing means
none was sampled), the league weights pushed to the runners, the converted policy file read
by ``agents.load``, and ``--resume`` with the run's settings from its checkpoint; runs on a
52-card rule set and with the last-card call (networks sized by the rules); a simulated
two-node cluster where both nodes' runners sample; and an ``--address`` where nothing answers
refused at once.
"""

from __future__ import annotations

import json
import signal
import socket
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="needs torch (pip install -e '.[train]')")

import torch

import agents
from sto_odno_env.bots.checkpoint import build_network, read
from sto_odno_env.game.engine import IllegalActionError
from sto_odno_env.game.rules import load_rules
from train import rllib_ppo
from train.config import load_config
from train.rllib import algorithm as rllib_config
from train.rllib import checkpoint as rllib_checkpoint
from train.rllib import env as rllib_env

TINY = [
    "--num-envs", "32", "rollout_steps=16", "minibatch_size=256", "epochs=1",
    "warm_start=none", "eval_every_minutes=0", "hidden=[32,32]", "league.snapshot_every=1",
    "league.max_snapshots=2",
]  # fmt: skip


def tiny_env(num_envs=8):
    config = load_config(None, {}, ["hidden=[32,32]"])
    env_config = rllib_config.env_config_of(config, load_rules(config.rules))
    return rllib_env.make_env({**env_config, "num_envs": num_envs})


def test_runner_env_is_next_step_with_the_mask_in_the_observation_and_raises_on_illegal():
    env = tiny_env()
    assert env.metadata["autoreset_mode"].name == "NEXT_STEP"
    obs, infos = env.reset(seed=0)
    assert set(obs) == {"observations", "action_mask"}
    assert infos == {"learner_seat": infos["learner_seat"]}  # ndarray values only
    illegal = np.argmin(obs["action_mask"], axis=1)
    with pytest.raises(IllegalActionError):
        env.step(illegal)


def test_the_rl_module_policy_is_the_kit_network():
    pytest.importorskip("ray", reason="needs Ray RLlib (pip install -e '.[dist]')")
    env = tiny_env(2)
    module = rllib_ppo.module_class()(
        observation_space=env.single_observation_space,
        action_space=env.single_action_space,
        model_config={"hidden": [32, 32]},
    )
    kit = build_network(189, [32, 32], 42)
    assert [type(m) for m in module.pi] == [type(m) for m in kit]
    assert {k: v.shape for k, v in module.pi.state_dict().items()} == {
        k: v.shape for k, v in kit.state_dict().items()
    }
    obs, _ = env.reset(seed=1)
    batch = {"obs": {k: torch.as_tensor(v) for k, v in obs.items()}}
    logits = module.forward_inference(batch)["action_dist_inputs"]
    assert (logits[torch.as_tensor(obs["action_mask"]) == 0] <= -1e8).all()


def test_the_shared_ppo_keys_reach_rllib_under_its_own_names():
    pytest.importorskip("ray", reason="needs Ray RLlib (pip install -e '.[dist]')")
    shared = {"learning_rate": 0.0007, "gamma": 0.91, "gae_lambda": 0.87, "clip_coef": 0.17,
              "ent_coef": 0.013, "vf_coef": 0.41, "max_grad_norm": 0.33, "epochs": 3}  # fmt: skip
    config = load_config(None, {}, [f"{key}={value}" for key, value in shared.items()])
    built = rllib_config.algorithm_config(config, load_rules(config.rules), 1, 0)
    assert (built.lr, built.gamma, built.lambda_, built.clip_param, built.entropy_coeff,
            built.vf_loss_coeff, built.grad_clip, built.num_epochs) == tuple(
        shared.values())  # fmt: skip


@pytest.mark.slow
def test_local_run_with_two_runners_converts_to_a_policy_file(tmp_path):
    out = tmp_path / "run"
    code = rllib_ppo.main(["--env-runners", "2", "--total-steps", "2500", "--out", str(out), *TINY])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["updates"] >= 2 and summary["learner_decisions"] >= 2500
    runners = summary["runners"]
    assert len(runners) == 2 and all(r["decisions"] > 0 for r in runners)
    # the league's weights reached every runner: the learner's latest policy and snapshots
    for runner in runners:
        assert runner["current_checksum"] == pytest.approx(summary["current_checksum"])
        assert runner["snapshots_filled"] == summary["snapshots_filled"] == 2
    policy = agents.load(str(out / "policy.pt"), "classic", 2)
    assert policy.act(np.zeros((1, 189), np.float32), np.eye(42, dtype=np.int8)[[5]]) == [5]
    exported = tmp_path / "exported.pt"
    assert rllib_ppo.main(["--export", str(out / "checkpoint"), str(exported)]) == 0
    saved, converted = read(out / "policy.pt"), read(exported)
    assert converted["hidden"] == [32, 32] and converted["players"] == [2]
    for key, value in saved["state_dict"].items():
        torch.testing.assert_close(converted["state_dict"][key], value)
    # --resume takes the run's settings (32 games, the widths, 2 runners) from the checkpoint
    before = summary["updates"]
    code = rllib_ppo.main(["--resume", str(out / "checkpoint"), "--total-steps", "5000"])
    assert code == 0
    resumed = json.loads((out / "summary.json").read_text())
    assert resumed["updates"] > before and resumed["learner_decisions"] >= 5000
    assert resumed["config"]["num_envs"] == 32 and resumed["config"]["hidden"] == [32, 32]
    assert resumed["env_runners"] == 2
    assert not (out / "checkpoint.new").exists() and not (out / "checkpoint.old").exists()


ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.parametrize(
    ("rules_file", "players", "obs_width", "actions"),
    [("deck-52.yaml", 3, 253, 58), ("last-card-call.yaml", 2, 190, 43)],
)
def test_a_run_on_a_rule_set_of_other_sizes(tmp_path, rules_file, players, obs_width, actions):
    # The runners' league networks, the driver's, the warm start's and the evaluation's
    # follow the rule set's observation and action sizes.
    rules = str(ROOT / "configs" / "rules" / "examples" / rules_file)
    out = tmp_path / "run"
    argv = ["--env-runners", "1", "--rules", rules, "--players", str(players), "--out", str(out)]
    tiny = [a for a in TINY if a not in ("warm_start=none", "eval_every_minutes=0")]
    extra = ["warm_start_decisions=512", "warm_start_epochs=1", "eval_matches=12"]
    assert rllib_ppo.main([*argv, "--total-steps", "600", *tiny, *extra]) == 0
    policy = read(out / "policy.pt")
    assert (policy["obs_size"], policy["num_actions"]) == (obs_width, actions)
    agent = agents.load(str(out / "policy.pt"), rules, players)
    masks = np.zeros((1, actions), np.int8)
    masks[0, actions - 1] = 1
    assert agent.act(np.zeros((1, obs_width), np.float32), masks) == [actions - 1]


@pytest.mark.slow
def test_two_node_cluster_samples_on_both_nodes(tmp_path):
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        out = tmp_path / "run"
        code = rllib_ppo.main(
            [
                "--address", cluster.address, "--env-runners", "2", "--total-steps", "1000",
                "--out", str(out), *TINY,
            ]
        )  # fmt: skip
        assert code == 0
        runners = json.loads((out / "summary.json").read_text())["runners"]
        assert len({r["node"] for r in runners}) == 2  # one CPU each: one runner per node
        assert all(r["decisions"] > 0 for r in runners)
    finally:
        cluster.shutdown()


def test_address_where_nothing_answers_is_a_clear_error(tmp_path, capsys):
    with socket.socket() as probe:  # a port with nothing behind it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}", "no-port"):
        started = time.perf_counter()
        code = rllib_ppo.main(["--address", address, "--out", str(tmp_path / "x"), *TINY])
        assert code == 2 and time.perf_counter() - started < 30
        error = capsys.readouterr().err
        assert f"--address {address}" in error or f"--address {address!r}" in error
        assert "ray start --head" in error or "allowed" in error


@pytest.mark.slow
def test_ctrl_c_waits_for_the_update_in_progress_then_saves_it(tmp_path):
    from tests.support.training import TrainerProcess, stopped

    out = tmp_path / "run"
    argv = ["--env-runners", "1", "--out", str(out), "--no-progress", *TINY]
    process = TrainerProcess(argv, script="train/rllib_ppo.py")
    process.wait_for("speed: ", timeout=300)  # Ray has started and an update has finished
    text, _ = stopped(process, signal.SIGINT, group=True)  # as a terminal's Ctrl-C
    assert "SIGINT during update" in text
    driver = torch.load(out / "checkpoint" / rllib_checkpoint.DRIVER_STATE, weights_only=True)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["saved_update"] == driver["counters"]["update"] >= 1
    exported = tmp_path / "exported.pt"  # the checkpoint's own policy: policy.pt's weights
    assert rllib_ppo.main(["--export", str(out / "checkpoint"), str(exported)]) == 0
    policy = read(out / "policy.pt")["state_dict"]
    for key, value in read(exported)["state_dict"].items():
        torch.testing.assert_close(policy[key], value)


def test_resume_from_a_corrupt_driver_state_is_one_line_of_the_kits_own(tmp_path, capsys):
    checkpoint = tmp_path / "checkpoint"
    checkpoint.mkdir()
    (checkpoint / rllib_checkpoint.DRIVER_STATE).write_bytes(b"not a torch file" * 64)
    argv = ["--resume", str(checkpoint), "--out", str(tmp_path / "run")]
    assert rllib_ppo.main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "is not a checkpoint of this kit" in error
    assert "weights_only" not in error and not (tmp_path / "run").exists()
