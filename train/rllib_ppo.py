"""Masked self-play PPO on Ray RLlib: the task of ``train/ppo.py``, on one machine or a cluster.

    python train/rllib_ppo.py [--config FILE] [--rules R] [--players P] [--total-steps N]
        [--minutes M] [--num-envs B] [--seed S] [--out DIR] [--env-runners R] [--gpus G]
        [--address auto|HOST:PORT|ray://HOST:10001] [--resume DIR] [key=value ...]
    python train/rllib_ppo.py --export CHECKPOINT_DIR POLICY.pt

The same config file, flags and ``key=value`` overrides as ``train/ppo.py``
(:func:`train.config.load_config`): rules, players, reward, network widths, PPO settings,
warm start and league. RLlib's PPO runs on its new API stack:

* ``--env-runners R`` env runners (Ray actors, one CPU each), each stepping one
  :class:`~sto_odno_env.gym_env.StoOdnoVectorEnv` of ``num_envs`` games on the batched
  engine (RLlib's ``gym_env_vectorize_mode="vector_entry_point"``), with Gymnasium's
  next-step auto-reset and a Dict observation ``{"observations", "action_mask"}``.
* The league (:class:`train.league.League`) sits inside each runner's env: the opponents
  of every game are drawn at match start as in ``train/ppo.py``. After every update the
  driver pushes the learner's policy weights (``current``) to every runner, and every
  ``league.snapshot_every`` updates the frozen snapshots, with
  ``env_runner_group.foreach_env_runner``.
* The RLModule (:class:`MaskedMLP`) is the kit's policy network exactly:
  ``agents.checkpoint.build_network`` for the actor (illegal actions get a logit of -1e9,
  so they are never sampled) and one for the critic, initialised as ``train/ppo.py``'s.
* ``num_envs`` is the number of games per env runner; a batch is ``rollout_steps`` decisions
  of every game of every runner; ``--gpus G`` puts G learners on G GPUs.

Ray runs locally (``ray.init()``) unless ``--address`` names a running cluster: ``auto``
(this machine belongs to one), ``HOST:6379`` or a Ray client address ``ray://HOST:10001``.
An address where no cluster answers is an error within seconds. On a cluster the runners
get this repository as their working directory (Ray's ``runtime_env``); every node needs
the kit's dependencies (``pip install -e '.[train,dist]'``).

Written to ``--out``: ``checkpoint/`` (RLlib's checkpoint plus ``sto_odno.pt``, the
driver's league and counters, for ``--resume``), ``policy.pt`` (the latest policy as a kit
policy file: ``agents.load`` and ``python -m agents.evaluate`` read it), ``best.pt``,
``evaluations.csv`` and ``summary.json``. ``--export`` converts an RLlib checkpoint
written here to a policy file.

Ray is imported only here (the ``dist`` extra): nothing else in the kit needs it.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import torch

from agents.checkpoint import (
    CheckpointError,
    TorchPolicyAgent,
    build_network,
    policy_record,
    write_atomic,
)
from agents.registry import AgentError
from agents.registry import load as load_agent
from sto_odno_env.cards import NUM_ACTIONS
from sto_odno_env.gym_env import StoOdnoVectorEnv
from sto_odno_env.observation import OBS_SIZE
from sto_odno_env.rules import Rules, RulesError, load_rules
from train.config import ConfigError, flag_values, load_config
from train.masked import make_networks, masked_logits

REPO = Path(__file__).resolve().parent.parent
ENV_NAME = "sto_odno_league"
KEYS = ("observations", "action_mask")  # RLlib's action-masking convention
DRIVER_STATE = "sto_odno.pt"
FLAGS = {  # flag -> (config key, type, help); as train/ppo.py's
    "--rules": ("rules", str, "rules preset or YAML file"),
    "--players": ("players", int, "players at each table, 2..6"),
    "--total-steps": ("total_steps", int, "stop after this many learner decisions"),
    "--minutes": ("minutes", float, "stop after this many minutes of wall clock (0: none)"),
    "--num-envs": ("num_envs", int, "games stepped at once by each env runner"),
    "--seed": ("seed", int, "seed of the games, the league and the network"),
    "--out": ("out", str, "directory for checkpoints, logs and results"),
}
RUNTIME_EXCLUDES = [".venv", ".git", "runs", "out", "notebooks", "*.egg-info", "__pycache__"]


class ClusterError(RuntimeError):
    """No Ray cluster answers at the address given."""


def _ray():
    try:
        import ray
    except ImportError:  # pragma: no cover - depends on the install
        raise ConfigError(
            "train/rllib_ppo.py needs Ray RLlib: pip install -e '.[train,dist]'"
        ) from None
    return ray


# --- the env each runner steps -------------------------------------------------------------


class LeagueVectorEnv(StoOdnoVectorEnv):
    """``num_envs`` games against the league, as RLlib wants them: next-step auto-reset, the
    Dict observation of :data:`KEYS`, illegal actions raise. Counts the learner decisions it
    stepped (``decisions``)."""

    def __init__(self, num_envs: int, env_config: dict[str, Any]):
        from train.league import League  # torch and the bots, on the runner

        rules = load_rules(env_config["rules"])
        players = int(env_config["players"])
        if env_config.get("threads"):
            torch.set_num_threads(int(env_config["threads"]))
        current = build_network(OBS_SIZE, list(env_config["hidden"]), NUM_ACTIONS)
        self.league = League(
            env_config["league"],
            rules,
            players,
            num_envs,
            current,
            int(env_config["seed"]),
            torch.device("cpu"),
        )
        super().__init__(
            num_envs,
            rules,
            players,
            opponents=self.league,
            reward=env_config["reward"],
            illegal_action="raise",
            autoreset_mode="next_step",
            observation_keys=KEYS,
        )
        self.decisions = 0

    def step(self, actions):
        self.decisions += self.num_envs - int(np.count_nonzero(self._autoreset))
        return super().step(actions)


def make_env(env_config: dict[str, Any]) -> LeagueVectorEnv:
    """The creator registered with ``ray.tune.register_env``: RLlib calls it with
    ``num_envs`` in the config (``gym_env_vectorize_mode="vector_entry_point"``)."""
    return LeagueVectorEnv(int(env_config.get("num_envs", 1)), dict(env_config))


def _runner_env(runner: Any) -> LeagueVectorEnv | None:
    env = getattr(runner, "env", None)
    return None if env is None else env.unwrapped


def _seed_runner(runner: Any, seed: int) -> None:
    """Give the runner's league its own random streams (RLlib seeds the games already)."""
    env = _runner_env(runner)
    if env is not None:
        index = int(runner.worker_index)
        env.league.rng = np.random.default_rng([seed, index, 0x1EA6])
        env.league.generator.manual_seed(seed * 7919 + 17 + 104_729 * index)


def _push_league(runner: Any, current: dict | None, snapshots: dict | None) -> dict | None:
    """Load the driver's league weights into the runner's league; return what the runner
    has done (its node, process and learner decisions)."""
    env = _runner_env(runner)
    if env is None:
        return None
    league = env.league
    if current is not None:
        league.current.load_state_dict(current)
    if snapshots is not None:
        for network, weights in zip(league.snapshots, snapshots["weights"], strict=True):
            network.load_state_dict(weights)
        league.snapshot_updates = list(snapshots["updates"])
        league.filled = int(snapshots["filled"])
        league.next_slot = int(snapshots["next_slot"])
    import ray

    return {
        "node": ray.get_runtime_context().get_node_id(),
        "pid": os.getpid(),
        "worker_index": int(runner.worker_index),
        "decisions": int(env.decisions),
        "current_checksum": checksum(league.current),
        "snapshots_filled": int(league.filled),
    }


def checksum(network: torch.nn.Module) -> float:
    """A number that tells two networks' weights apart (to check the pushes)."""
    with torch.no_grad():
        return float(sum((p.double() * (i + 1)).sum() for i, p in enumerate(network.parameters())))


def _timed_sampling(runner: Any, seconds: float) -> dict | None:
    """Sample on this runner for about ``seconds``: learner decisions and time taken."""
    env = _runner_env(runner)
    if env is None:
        return None
    runner.sample()  # warm up
    start, before = time.perf_counter(), env.decisions
    while time.perf_counter() - start < seconds:
        runner.sample()
    return {"decisions": env.decisions - before, "seconds": time.perf_counter() - start}


# --- the RLModule ---------------------------------------------------------------------------


def module_class():
    """:class:`MaskedMLP`, built on first use so that importing this file needs no Ray."""
    global MaskedMLP
    if "MaskedMLP" in globals():
        return MaskedMLP
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis import ValueFunctionAPI
    from ray.rllib.core.rl_module.torch import TorchRLModule

    class MaskedMLP(TorchRLModule, ValueFunctionAPI):
        """The kit's actor (``pi``: ``build_network(obs, hidden, actions)``) and critic
        (``vf``) on the Dict observation; illegal actions' logits are -1e9."""

        def setup(self):
            space = self.observation_space
            size = int(space[KEYS[0]].shape[0]) if hasattr(space, "spaces") else OBS_SIZE
            self.pi, self.vf = make_networks(
                size, list(self.model_config["hidden"]), int(self.action_space.n)
            )

        def _forward(self, batch, **kwargs):
            observations = batch[Columns.OBS]
            logits = self.pi(observations[KEYS[0]])
            legal = observations[KEYS[1]] > 0
            return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, legal)}

        def compute_values(self, batch, embeddings=None):
            return self.vf(batch[Columns.OBS][KEYS[0]]).squeeze(-1)

    MaskedMLP.__module__ = __name__
    MaskedMLP.__qualname__ = "MaskedMLP"
    globals()["MaskedMLP"] = MaskedMLP
    return MaskedMLP


def __getattr__(name: str):  # pickled MaskedMLP references resolve on the runners
    if name == "MaskedMLP":
        return module_class()
    raise AttributeError(name)


# --- the algorithm --------------------------------------------------------------------------


def env_config_of(config: dict[str, Any], rules: Rules) -> dict[str, Any]:
    return {
        "rules": rules.to_dict(),
        "players": config["players"],
        "reward": config["reward"],
        "hidden": list(config["hidden"]),
        "league": dict(config["league"]),
        "seed": config["seed"],
        "threads": config["threads"],
    }


def algorithm_config(config: dict[str, Any], rules: Rules, env_runners: int, gpus: int):
    """RLlib's PPOConfig for the training config."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    register_env(ENV_NAME, make_env)
    num_envs, steps = config["num_envs"], config["rollout_steps"]
    batch = num_envs * steps * max(env_runners, 1)
    learners = {"num_learners": 0}
    if gpus:
        learners = {"num_learners": gpus, "num_gpus_per_learner": 1}
    return (
        PPOConfig()
        .framework("torch")
        .environment(
            ENV_NAME,
            env_config=env_config_of(config, rules),
            # Discrete actions: nothing to unsquash or clip (saves a loop over the games)
            normalize_actions=False,
            clip_actions=False,
        )
        .env_runners(
            num_env_runners=env_runners,
            num_envs_per_env_runner=num_envs,
            gym_env_vectorize_mode="vector_entry_point",
            rollout_fragment_length=steps,
            num_cpus_per_env_runner=1,
        )
        .learners(**learners)
        .training(
            lr=config["learning_rate"],
            gamma=config["gamma"],
            lambda_=config["gae_lambda"],
            clip_param=config["clip_coef"],
            entropy_coeff=config["ent_coef"],
            vf_loss_coeff=config["vf_coef"],
            grad_clip=config["max_grad_norm"],
            grad_clip_by="global_norm",
            num_epochs=config["epochs"],
            minibatch_size=min(config["minibatch_size"], batch),
            train_batch_size_per_learner=batch // max(gpus, 1),
            use_kl_loss=False,
            vf_clip_param=1e6,
        )
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=module_class(), model_config={"hidden": list(config["hidden"])}
            )
        )
        .debugging(seed=config["seed"], log_level="ERROR")
    )


def connect(address: str | None, env_runners: int, gpus: int) -> None:
    """``ray.init``: local by default; an existing cluster at ``address``, refused within
    seconds (:class:`ClusterError`) when nothing answers there."""
    ray = _ray()
    env_vars = {
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    }
    quiet = {"logging_level": "ERROR", "log_to_driver": True}
    if address is None:
        ray.init(
            address="local",
            num_cpus=max(os.cpu_count() or 1, env_runners + 1),
            num_gpus=gpus or None,
            include_dashboard=False,
            runtime_env={"env_vars": env_vars},
            **quiet,
        )
        return
    _check_reachable(address)
    runtime_env = {"working_dir": str(REPO), "excludes": RUNTIME_EXCLUDES}
    try:
        ray.init(address=address, runtime_env=runtime_env, **quiet)
    except Exception as error:  # ConnectionError, RuntimeError, ...: Ray's own message
        raise ClusterError(
            f"--address {address}: no Ray cluster could be joined ({type(error).__name__}: "
            f"{error}); start one with `ray start --head` (docs/training.md)"
        ) from None


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """A TCP connection to ``HOST:PORT`` / ``ray://HOST:PORT`` (``auto`` is Ray's to find)."""
    if address == "auto":
        return
    where = address.removeprefix("ray://")
    host, sep, port = where.rpartition(":")
    if not sep or not port.isdigit():
        raise ClusterError(
            f"--address {address!r} is not allowed; allowed: auto, HOST:PORT or ray://HOST:PORT"
        )
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as error:
        raise ClusterError(
            f"--address {address}: nothing answers at {host}:{port} ({error}); start a "
            "cluster there with `ray start --head` or give --address auto on one of its "
            "nodes (docs/training.md)"
        ) from None


# --- the run --------------------------------------------------------------------------------


class RLlibTrainer:
    """One RLlib PPO run: the algorithm, the driver's copy of the league, the counters."""

    def __init__(self, config: dict[str, Any], rules: Rules, args: argparse.Namespace):
        from train.league import League

        self.config = config
        self.rules = rules
        self.players = config["players"]
        self.env_runners = args.env_runners
        self.algo = algorithm_config(config, rules, args.env_runners, args.gpus).build_algo()
        # The driver's league holds the snapshots that every runner's league copies.
        self.actor = build_network(OBS_SIZE, config["hidden"], NUM_ACTIONS)
        self.league = League(
            config["league"],
            rules,
            self.players,
            1,
            self.actor,
            config["seed"],
            torch.device("cpu"),
        )
        self.update = 0
        self.global_step = 0
        self.episodes = 0
        self.elapsed = 0.0
        self.best_rate = -1.0
        self.warm_started = config["warm_start"] == "none"
        self.evaluations: list[dict[str, Any]] = []
        self.runners: list[dict[str, Any]] = []
        self.group.foreach_env_runner(functools.partial(_seed_runner, seed=config["seed"]))

    @property
    def group(self):
        return self.algo.env_runner_group

    # --- weights ----------------------------------------------------------------------------

    def module_state(self) -> dict[str, torch.Tensor]:
        """The learner's RLModule weights (``pi.*`` and ``vf.*``) as CPU tensors."""
        from ray.rllib.core.rl_module.rl_module import DEFAULT_MODULE_ID

        state = self.algo.learner_group.get_weights()[DEFAULT_MODULE_ID]
        return {k: torch.as_tensor(np.asarray(v)).clone() for k, v in state.items()}

    def pull_actor(self) -> None:
        state = self.module_state()
        self.actor.load_state_dict({k[3:]: v for k, v in state.items() if k.startswith("pi.")})

    def set_module_state(self, actor: torch.nn.Module, critic: torch.nn.Module) -> None:
        """Put ``actor`` and ``critic`` into the learner and every runner."""
        from ray.rllib.core.rl_module.rl_module import DEFAULT_MODULE_ID

        state = {f"pi.{k}": v.detach().cpu().numpy() for k, v in actor.state_dict().items()}
        state |= {f"vf.{k}": v.detach().cpu().numpy() for k, v in critic.state_dict().items()}
        self.algo.learner_group.set_weights({DEFAULT_MODULE_ID: state})
        self.group.sync_weights(from_worker_or_learner_group=self.algo.learner_group)
        self.pull_actor()

    def push_league(self, snapshots: bool = False) -> list[dict[str, Any]]:
        """Send ``current`` (and the snapshots) to every runner; note what each has done."""
        current = {k: v.clone() for k, v in self.actor.state_dict().items()}
        held = None
        if snapshots:
            held = {
                "weights": [
                    {k: v.clone() for k, v in net.state_dict().items()}
                    for net in self.league.snapshots
                ],
                "updates": list(self.league.snapshot_updates),
                "filled": self.league.filled,
                "next_slot": self.league.next_slot,
            }
        results = self.group.foreach_env_runner(
            functools.partial(_push_league, current=current, snapshots=held)
        )
        self.runners = [r for r in results if r is not None]
        return self.runners

    # --- training ---------------------------------------------------------------------------

    def warm_start(self) -> dict[str, float]:
        """``train/ppo.py``'s warm start (imitation of the ``warm_start`` bot), on the driver;
        the weights then go to the learner and the runners."""
        from train.imitation import warm_start

        config = self.config
        started = time.perf_counter()
        actor, critic = make_networks(OBS_SIZE, config["hidden"], NUM_ACTIONS)
        generator = torch.Generator().manual_seed(config["seed"])
        stats = warm_start(
            config, self.rules, self.players, actor, critic, generator, torch.device("cpu")
        )
        self.set_module_state(actor, critic)
        self.push_league()
        self.elapsed += time.perf_counter() - started
        self.warm_started = True
        return stats

    def train(self) -> dict[str, float]:
        """One RLlib iteration (sample on every runner, one PPO update), then the league."""
        from ray.rllib.utils.metrics import (
            ENV_RUNNER_RESULTS,
            EPISODE_RETURN_MEAN,
            NUM_ENV_STEPS_SAMPLED,
            NUM_EPISODES,
        )

        started = time.perf_counter()
        result = self.algo.train()
        self.update += 1
        self.pull_actor()
        snapshot = self.update % self.config["league"]["snapshot_every"] == 0
        if snapshot:
            self.league.add_snapshot(self.update)
        self.push_league(snapshots=snapshot)
        seconds = time.perf_counter() - started
        self.elapsed += seconds
        runners = result.get(ENV_RUNNER_RESULTS, {})
        steps = int(runners.get(NUM_ENV_STEPS_SAMPLED, 0))
        self.global_step += steps
        self.episodes += int(runners.get(NUM_EPISODES, 0))
        return {
            "steps": steps,
            "steps_per_second": steps / seconds,
            "episode_return_mean": float(runners.get(EPISODE_RETURN_MEAN, float("nan"))),
        }

    def evaluate(self):
        from train.evaluation import evaluate

        config = self.config
        name = config["eval_opponent"]
        opponent = load_agent(name, self.rules, self.players, seed=config["seed"])
        actor = build_network(OBS_SIZE, config["hidden"], NUM_ACTIONS)
        actor.load_state_dict(self.actor.state_dict())
        result = evaluate(
            TorchPolicyAgent(actor), opponent, name, self.rules, self.players,
            config["eval_matches"], seed=config["seed"] + 100_003,
        )  # fmt: skip
        self.evaluations.append(result.row(self.update, self.global_step, self.elapsed / 60))
        return result

    # --- checkpoints ------------------------------------------------------------------------

    def policy_data(self) -> dict[str, Any]:
        return policy_record(
            self.actor, self.config["hidden"], self.rules.to_dict(), [self.players]
        )

    def save(self, out: Path) -> None:
        """RLlib's checkpoint with the driver's state beside it, and ``policy.pt``."""
        path = out / "checkpoint"
        self.algo.save_to_path(str(path.resolve()))
        write_atomic(
            path / DRIVER_STATE,
            {
                "config": json.dumps(self.config),
                "league": self.league.get_state(),
                "counters": {
                    "update": self.update,
                    "global_step": self.global_step,
                    "episodes": self.episodes,
                    "elapsed": self.elapsed,
                    "best_rate": self.best_rate,
                    "warm_started": self.warm_started,
                },
                "evaluations": json.dumps(self.evaluations),
            },
        )
        write_atomic(out / "policy.pt", self.policy_data())

    def restore(self, path: Path) -> None:
        """Continue the run saved in the checkpoint directory ``path``."""
        driver = path / DRIVER_STATE
        if not driver.is_file():
            raise CheckpointError(
                f"checkpoint {str(path)!r} has no {DRIVER_STATE}; --resume needs the "
                "checkpoint/ directory written by train/rllib_ppo.py"
            )
        data = torch.load(driver, map_location="cpu", weights_only=True)
        saved = json.loads(data["config"])
        for key in ("hidden", "players", "num_envs"):
            if saved[key] != self.config[key]:
                raise CheckpointError(
                    f"checkpoint {str(path)!r} was trained with {key}={saved[key]!r}; this "
                    f"run has {key}={self.config[key]!r} (they must match to resume)"
                )
        self.algo.restore_from_path(str(path.resolve()))
        self.pull_actor()
        self.league.set_state(data["league"])
        counters = data["counters"]
        self.update = int(counters["update"])
        self.global_step = int(counters["global_step"])
        self.episodes = int(counters["episodes"])
        self.elapsed = float(counters["elapsed"])
        self.best_rate = float(counters["best_rate"])
        self.warm_started = bool(counters["warm_started"])
        self.evaluations = json.loads(data["evaluations"])
        self.group.sync_weights(from_worker_or_learner_group=self.algo.learner_group)
        self.push_league(snapshots=True)

    def stop(self) -> None:
        self.algo.stop()


def export_policy(checkpoint: str | Path, path: str | Path) -> None:
    """Convert an RLlib checkpoint written by this trainer to a kit policy file."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    checkpoint = Path(checkpoint).resolve()
    driver = checkpoint / DRIVER_STATE
    module_dir = checkpoint / "learner_group" / "learner" / "rl_module" / "default_policy"
    if not driver.is_file() or not module_dir.is_dir():
        raise CheckpointError(
            f"checkpoint {str(checkpoint)!r} is not a train/rllib_ppo.py checkpoint "
            f"(no {DRIVER_STATE} or learner_group/learner/rl_module/default_policy)"
        )
    config = json.loads(torch.load(driver, map_location="cpu", weights_only=True)["config"])
    module_class()
    module = RLModule.from_checkpoint(str(module_dir))
    rules = load_rules(config["rules"])
    write_atomic(
        path, policy_record(module.pi, config["hidden"], rules.to_dict(), [config["players"]])
    )


# --- the command line -----------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python train/rllib_ppo.py",
        description="Masked self-play PPO for 101 on Ray RLlib (defaults: "
        "configs/train/ppo.yaml), locally or on a Ray cluster (--address).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument(
        "--config", default=None, help="training config YAML (default: configs/train/ppo.yaml)"
    )
    for flag, (_, kind, text) in FLAGS.items():
        parser.add_argument(flag, type=str, default=None, help=f"{text} ({kind.__name__})")
    parser.add_argument("--env-runners", type=int, default=2, help="RLlib env runners")
    parser.add_argument("--gpus", type=int, default=0, help="learners on GPUs (0: CPU)")
    parser.add_argument(
        "--address", default=None, help="a running Ray cluster: auto, HOST:PORT or ray://HOST:PORT"
    )
    parser.add_argument("--resume", default=None, help="checkpoint/ directory of a run")
    parser.add_argument(
        "--measure",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="only measure: every runner samples for SECONDS; print the steps/s",
    )
    parser.add_argument(
        "--export",
        nargs=2,
        metavar=("CHECKPOINT_DIR", "POLICY_PT"),
        default=None,
        help="convert a checkpoint/ directory to a kit policy file, then stop",
    )
    parser.add_argument(
        "overrides",
        nargs="*",
        metavar="key=value",
        help="override any config key, e.g. learning_rate=1e-4 league.expert=0.5",
    )
    args = parser.parse_intermixed_args(argv)
    if args.env_runners < 0 or args.gpus < 0:
        raise ConfigError("--env-runners and --gpus are not allowed below 0")
    return args


def measure(trainer: RLlibTrainer, seconds: float) -> dict[str, Any]:
    """Every runner samples for ``seconds`` at once: their learner decisions per second."""
    results = [
        r
        for r in trainer.group.foreach_env_runner(
            functools.partial(_timed_sampling, seconds=seconds)
        )
        if r is not None
    ]
    total = sum(r["decisions"] / r["seconds"] for r in results)
    return {
        "env_runners": len(results),
        "num_envs": trainer.config["num_envs"],
        "per_runner": [round(r["decisions"] / r["seconds"]) for r in results],
        "steps_per_second": round(total),
    }


def run(trainer: RLlibTrainer, args: argparse.Namespace) -> dict[str, Any]:
    config = trainer.config
    out = Path(config["out"])
    budget = config["minutes"] * 60 if config["minutes"] else float("inf")
    session_start = time.perf_counter()
    last_checkpoint = last_eval = session_start

    def evaluate() -> None:
        from train.ppo import write_evaluations

        result = trainer.evaluate()
        if result.rate > trainer.best_rate:
            trainer.best_rate = result.rate
            write_atomic(out / "best.pt", trainer.policy_data())
        write_evaluations(out / "evaluations.csv", trainer.evaluations)
        print(f"update {trainer.update} step {trainer.global_step:,}: {result.describe()}")

    if not trainer.warm_started:
        stats = trainer.warm_start()
        print(
            f"warm start: imitated {config['warm_start']}: agreement "
            f"{stats.get('agreement', 0):.3f}, value error {stats.get('value_loss', 0):.3f}",
            flush=True,
        )
    if trainer.update == 0 and config["eval_every_minutes"]:
        evaluate()
    interrupted = False
    try:
        while trainer.global_step < config["total_steps"]:
            if time.perf_counter() - session_start >= budget:
                break
            stats = trainer.train()
            print(
                f"update {trainer.update} step {trainer.global_step:,}: "
                f"{stats['steps_per_second']:,.0f} steps/s, "
                f"return {stats['episode_return_mean']:.3f}",
                flush=True,
            )
            now = time.perf_counter()
            if (
                config["eval_every_minutes"]
                and now - last_eval >= 60 * config["eval_every_minutes"]
            ):
                evaluate()
                last_eval = time.perf_counter()
            if now - last_checkpoint >= 60 * config["checkpoint_every_minutes"]:
                trainer.save(out)
                last_checkpoint = time.perf_counter()
    except KeyboardInterrupt:
        interrupted = True
        print("interrupted: saving the last finished update", flush=True)
    if (
        not interrupted
        and config["eval_every_minutes"]
        and (not trainer.evaluations or trainer.evaluations[-1]["update"] != trainer.update)
    ):
        evaluate()
    trainer.save(out)
    summary = {
        "updates": trainer.update,
        "learner_steps": trainer.global_step,
        "episodes": trainer.episodes,
        "minutes": round(trainer.elapsed / 60, 2),
        "steps_per_second": round(trainer.global_step / max(trainer.elapsed, 1e-9)),
        "env_runners": trainer.env_runners,
        "runners": trainer.runners,
        "current_checksum": checksum(trainer.actor),
        "snapshots_filled": trainer.league.filled,
        "interrupted": interrupted,
        "latest_evaluation": trainer.evaluations[-1] if trainer.evaluations else None,
        "best_rate": trainer.best_rate if trainer.evaluations else None,
        "out": config["out"],
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(
        f"{trainer.update} updates, {trainer.global_step:,} learner decisions in "
        f"{trainer.elapsed / 60:.1f} min ({summary['steps_per_second']:,} steps/s); "
        f"written to {out}",
        flush=True,
    )
    return summary


def main(argv: list[str] | None = None) -> int:
    ray = None
    trainer = None
    try:
        args = parse_args(argv)
        if args.export:
            export_policy(*args.export)
            print(f"wrote {args.export[1]}")
            return 0
        config = load_config(args.config, flag_values(args, FLAGS), args.overrides)
        if config["self_play_games"]:
            raise ConfigError(
                f"self_play_games={config['self_play_games']} is train/ppo.py's; "
                "allowed here: 0 (RLlib trains the league games only)"
            )
        rules = load_rules(config["rules"])
        rules.check_players(config["players"])
        load_agent(config["eval_opponent"], rules, config["players"])  # a bad name fails now
        out = Path(config["out"])
        if out.exists() and not out.is_dir():
            raise ConfigError(f"out={str(out)!r} is a file; allowed: a directory path")
        resume = Path(args.resume) if args.resume else None
        if resume is not None and not (resume / DRIVER_STATE).is_file():
            raise CheckpointError(
                f"checkpoint {str(resume)!r} has no {DRIVER_STATE}; --resume needs the "
                "checkpoint/ directory written by train/rllib_ppo.py"
            )
        if config["threads"]:
            torch.set_num_threads(config["threads"])
        ray = _ray()
        connect(args.address, args.env_runners, args.gpus)
        out.mkdir(parents=True, exist_ok=True)
        trainer = RLlibTrainer(config, rules, args)
        if resume is not None:
            trainer.restore(resume)
        if args.measure:
            print(json.dumps(measure(trainer, args.measure)), flush=True)
            return 0
        run(trainer, args)
        return 0
    except (
        ConfigError,
        RulesError,
        AgentError,
        CheckpointError,
        ClusterError,
        ValueError,
    ) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        if trainer is not None:
            trainer.stop()
        if ray is not None and ray.is_initialized():
            ray.shutdown()


if __name__ == "__main__":
    from train.rllib_ppo import main as _main  # so that the runners unpickle by reference

    sys.exit(_main())
