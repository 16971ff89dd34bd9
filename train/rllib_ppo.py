"""Masked self-play PPO on Ray RLlib: the task of ``train/ppo.py``, on one machine or a cluster.

``--help`` lists the options; ``--measure SECONDS`` times sampling alone and ``--export
CHECKPOINT_DIR POLICY.pt`` converts a checkpoint written here to a policy file.

The same config, flags and run harness as ``train/ppo.py`` (``train/config.py``,
``train/run/session.py``: budget, warm start, evaluations, progress, checkpoints, Ctrl-C, the
summary): rules, players, reward, network widths, PPO settings, warm start and league.
RLlib's PPO runs on its new API stack:

* ``--env-runners R`` env runners (Ray actors, one CPU each), each stepping one
  :class:`~sto_odno_env.envs.gym_env.StoOdnoVectorEnv` of ``num_envs`` games on the batched
  engine (RLlib's ``gym_env_vectorize_mode="vector_entry_point"``), with Gymnasium's
  next-step auto-reset and a Dict observation ``{"observations", "action_mask"}``.
* The league (:class:`train.ppo_parts.league.League`) sits inside each runner's env: the opponents
  of every game are drawn at match start as in ``train/ppo.py``. After every update the
  driver pushes the learner's policy weights (``current``) to every runner, and every
  ``league.snapshot_every`` updates the frozen snapshots, with
  ``env_runner_group.foreach_env_runner``.
* The RLModule (:class:`train.rllib.module.MaskedMLP`) is the kit's policy network exactly:
  ``sto_odno_env.bots.checkpoint.build_network`` for the actor (illegal actions get a logit of -1e9,
  so they are never sampled) and one for the critic, initialised as ``train/ppo.py``'s.
  Every network is sized by the rule set (observation width, number of actions), so a
  52-card deck or the last-card call trains as the classic rules do.
* ``num_envs`` is the number of games per env runner; a batch is ``rollout_steps`` decisions
  of every game of every runner; ``--gpus G`` puts G learners on G GPUs.

Ray runs locally (``ray.init()``) unless ``--address`` names a running cluster: ``auto``
(this machine belongs to one), ``HOST:6379`` or a Ray client address ``ray://HOST:10001``.
An address where no cluster answers is an error within seconds (``train/rllib/cluster.py``).
On a cluster the runners get this repository as their working directory (Ray's
``runtime_env``); every node needs the kit's dependencies (``pip install -e
'.[train,dist]'``).

Written to ``--out``: ``checkpoint/`` (RLlib's checkpoint plus ``sto_odno.pt``, the
driver's league, counters and flags, for ``--resume``; written beside it and renamed into
place), ``policy.pt`` (the same update's policy as a kit policy file: ``agents.load`` and
``python -m agents.evaluate`` read it), ``best.pt``, ``evaluations.csv`` and
``summary.json``. An update cannot be cut short: Ctrl-C waits for the one in progress (a
second Ctrl-C stops at once without it).

Ray is imported only by ``train/rllib_*.py`` (the ``dist`` extra): nothing else in the kit
needs it. Its parts: the PPOConfig (``train/rllib/algorithm.py``), the runners' env
(``train/rllib/env.py``), the RLModule (``train/rllib/module.py``), where Ray runs
(``train/rllib/cluster.py``) and the checkpoint directory (``train/rllib/checkpoint.py``).
"""

from __future__ import annotations

import functools
import json
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from sto_odno_env.bots.checkpoint import (
    CheckpointError,
    TorchPolicyAgent,
    build_network,
    policy_record,
    write_atomic,
)
from sto_odno_env.views.observation import obs_size
from train import deferred_import
from train.ppo_parts.masked import make_networks
from train.ppo_parts.state import PolicyRecord
from train.rllib import checkpoint as rllib_checkpoint
from train.rllib import env as rllib_env
from train.rllib.algorithm import algorithm_config
from train.rllib.cluster import connect
from train.rllib.env import checksum
from train.rllib.module import module_class
from train.run import session
from train.run.command_line import parse, user_errors
from train.run.console import Console
from train.run.protocol import Counters, Flag, Record, Saved, Settings, Spec, Update

if TYPE_CHECKING:
    import torch
    from ray.rllib.algorithms.algorithm import Algorithm
    from ray.rllib.core.learner.learner_group import LearnerGroup
    from ray.rllib.env.env_runner_group import EnvRunnerGroup
else:  # loaded on first use, so that a bad command line fails before torch's seconds of loading
    torch = deferred_import("torch")


def __getattr__(name: str) -> type:  # checkpoints pickled before the module moved name it here
    if name == "MaskedMLP":
        return module_class()
    raise AttributeError(name)


# --- the run --------------------------------------------------------------------------------


class RLlibTrainer:
    """One RLlib PPO run: the algorithm, the driver's copy of the league and policy.
    ``train/run/session.py`` drives it; an update (RLlib's ``train()``) is never cut short."""

    interruptible = False
    policy_name = "policy.pt"

    def __init__(self, settings: Settings, console: Console):
        from train.ppo_parts.league import League

        config = self.config = settings.config
        self.rules = settings.rules
        self.players = config.players
        self.env_runners = settings.flag("env_runners", int)
        self.gpus = settings.flag("gpus", int)
        self.address = settings.optional_flag("address", str)
        self.obs_size, self.num_actions = obs_size(self.rules), self.rules.num_actions
        self._algo: Algorithm | None = None  # built below; None again once closed
        self.runners: list[dict[str, Any]] = []
        if config.threads:
            torch.set_num_threads(config.threads)
        where = self.address or "this machine"
        console.say(f"  starting Ray on {where} and RLlib's PPO with {self.env_runners} runners")
        try:
            handler = signal.getsignal(signal.SIGTERM)
            connect(self.address, self.env_runners, self.gpus)
            signal.signal(signal.SIGTERM, handler)  # ray.init sets its own, a sys.exit
            algorithm = algorithm_config(config, self.rules, self.env_runners, self.gpus)
            self._algo = algorithm.build_algo()
            # The driver's league holds the snapshots that every runner's league copies.
            self.actor = build_network(self.obs_size, list(config.hidden), self.num_actions)
            self.league = League(
                config.league, self.rules, self.players, 1, self.actor, config.seed,
                torch.device("cpu"),
            )  # fmt: skip
            self.group.foreach_env_runner(
                functools.partial(rllib_env.seed_runner, seed=config.seed)
            )
            if settings.saved is not None:
                self.restore(settings.saved)
            else:
                self.pull_actor()  # the learner's first weights, for the first evaluation
        except BaseException:  # Ctrl-C or an error while Ray starts: leave nothing running
            self.close()
            raise

    @property
    def algo(self) -> Algorithm:
        """RLlib's PPO, built by the constructor (until :meth:`close`)."""
        if self._algo is None:
            raise RuntimeError("the RLlib algorithm is closed")
        return self._algo

    @property
    def group(self) -> EnvRunnerGroup:
        """The env runners (RLlib's algorithm always has them once built)."""
        group = self.algo.env_runner_group
        if group is None:
            raise RuntimeError("the RLlib algorithm has no env runners")
        return group

    @property
    def learners(self) -> LearnerGroup:
        """The learner group (RLlib's new API stack always has one once built)."""
        learners = self.algo.learner_group
        if learners is None:
            raise RuntimeError("the RLlib algorithm has no learner group")
        return learners

    # --- weights ----------------------------------------------------------------------------

    def module_state(self) -> dict[str, torch.Tensor]:
        """The learner's RLModule weights (``pi.*`` and ``vf.*``) as CPU tensors."""
        from ray.rllib.core.rl_module.rl_module import DEFAULT_MODULE_ID

        state = self.learners.get_weights()[DEFAULT_MODULE_ID]
        return {k: torch.as_tensor(np.asarray(v)).clone() for k, v in state.items()}

    def pull_actor(self) -> None:
        state = self.module_state()
        self.actor.load_state_dict({k[3:]: v for k, v in state.items() if k.startswith("pi.")})

    def set_module_state(self, actor: torch.nn.Module, critic: torch.nn.Module) -> None:
        """Put ``actor`` and ``critic`` into the learner and every runner."""
        from ray.rllib.core.rl_module.rl_module import DEFAULT_MODULE_ID

        state = {f"pi.{k}": v.detach().cpu().numpy() for k, v in actor.state_dict().items()}
        state |= {f"vf.{k}": v.detach().cpu().numpy() for k, v in critic.state_dict().items()}
        self.learners.set_weights({DEFAULT_MODULE_ID: state})
        self.group.sync_weights(from_worker_or_learner_group=self.learners)
        self.pull_actor()

    def push_league(self, snapshots: bool = False) -> list[dict[str, Any]]:
        """Send ``current`` (and the snapshots) to every runner; note what each has done."""
        current = {k: v.clone() for k, v in self.actor.state_dict().items()}
        held = self.league.snapshots_state() if snapshots else None
        results = self.group.foreach_env_runner(
            functools.partial(rllib_env.push_league, current=current, snapshots=held)
        )
        self.runners = [r for r in results if r is not None]
        return self.runners

    # --- training ---------------------------------------------------------------------------

    def warm_start(self, console: Console) -> dict[str, float]:
        """``train/ppo.py``'s warm start (imitation of the ``warm_start`` bot), on the driver;
        the weights then go to the learner and the runners."""
        from train.ppo_parts.imitation import warm_start

        torch.manual_seed(self.config.seed)
        actor, critic = self._warm_start_networks()
        generator = torch.Generator().manual_seed(self.config.seed)
        stats = warm_start(
            self.config, self.rules, [(self.players, self.config.num_envs)], actor, critic,
            generator, torch.device("cpu"), console,
        )  # fmt: skip
        self.set_module_state(actor, critic)
        self.push_league()
        return stats

    def warm_start_seconds(self) -> float:
        from train.ppo_parts.imitation import estimate_seconds

        actor, critic = self._warm_start_networks()
        return estimate_seconds(
            self.config,
            self.rules,
            [(self.players, self.config.num_envs)],
            actor,
            critic,
            torch.device("cpu"),
        )

    def _warm_start_networks(self) -> tuple[torch.nn.Module, torch.nn.Module]:
        return make_networks(self.obs_size, list(self.config.hidden), self.num_actions)

    def train(self, counters: Counters) -> Update:
        """One RLlib iteration (sample on every runner, one PPO update), then the league."""
        from ray.rllib.utils.metrics import (
            ENV_RUNNER_RESULTS,
            EPISODE_RETURN_MEAN,
            NUM_ENV_STEPS_SAMPLED,
            NUM_EPISODES,
        )

        result = self.algo.train()
        update = counters.update + 1
        self.pull_actor()
        snapshot = update % self.config.league.snapshot_every == 0
        if snapshot:
            self.league.add_snapshot(update)
        self.push_league(snapshots=snapshot)
        runners = result.get(ENV_RUNNER_RESULTS, {})
        stats = {"episode_return_mean": float(runners.get(EPISODE_RETURN_MEAN, float("nan")))}
        return Update(
            int(runners.get(NUM_ENV_STEPS_SAMPLED, 0)), int(runners.get(NUM_EPISODES, 0)), stats
        )

    # --- the run harness's side -------------------------------------------------------------

    def capture(self) -> PolicyRecord:
        """The driver's policy (a copy); the algorithm itself is saved as it is, which is
        the same update since updates are never cut short."""
        record = policy_record(
            self.actor, list(self.config.hidden), self.rules.to_dict(), [self.players]
        )
        return cast(PolicyRecord, record)  # policy_record's entries

    def policy_agent(self, captured: PolicyRecord) -> TorchPolicyAgent:
        actor = build_network(self.obs_size, list(self.config.hidden), self.num_actions)
        actor.load_state_dict(captured["state_dict"])
        return TorchPolicyAgent(actor)

    def write_policy(self, captured: PolicyRecord, path: Path) -> None:
        write_atomic(path, dict(captured))

    def write_checkpoint(self, captured: PolicyRecord, counters: Counters, out: Path) -> Path:
        """RLlib's checkpoint with the driver's state beside it (``train/rllib/checkpoint.py``)."""
        driver: Record = {
            "config": json.dumps(self.config.to_dict()),
            "league": self.league.get_state(),
            "counters": counters.to_dict(),
            "flags": {"env_runners": self.env_runners, "gpus": self.gpus},
        }
        return rllib_checkpoint.write_checkpoint(self.algo, driver, out)

    def restore(self, saved: Saved) -> None:
        """Continue the run saved in the checkpoint directory ``saved.path``."""
        self.algo.restore_from_path(str(saved.path.resolve()))
        self.pull_actor()
        league = saved.data["league"]
        if not isinstance(league, dict):
            raise CheckpointError(f"checkpoint {str(saved.path)!r} holds no league state")
        self.league.set_state(league)
        self.group.sync_weights(from_worker_or_learner_group=self.learners)
        self.push_league(snapshots=True)

    def scores(self, captured: PolicyRecord) -> dict[str, float]:
        return {}  # the runners' envs do not count them

    def describe(self) -> str:
        config = self.config
        return (
            f"{self.env_runners} env runners x {config.num_envs} league games x "
            f"{config.rollout_steps} decisions per update, MLP {list(config.hidden)}"
        )

    def extra_summary(self) -> Record:
        return {
            "env_runners": self.env_runners,
            "runners": self.runners,
            "current_checksum": checksum(self.actor),
            "snapshots_filled": self.league.filled,
        }

    def close(self) -> None:
        ray = sys.modules.get("ray")
        if self._algo is not None:
            self._algo.stop()
            self._algo = None
        if ray is not None and ray.is_initialized():
            ray.shutdown()


def measure(trainer: RLlibTrainer, seconds: float) -> dict[str, Any]:
    """Every runner samples for ``seconds`` at once: their learner decisions per second."""
    results = [
        r
        for r in trainer.group.foreach_env_runner(
            functools.partial(rllib_env.timed_sampling, seconds=seconds)
        )
        if r is not None
    ]
    total = sum(r["decisions"] / r["seconds"] for r in results)
    return {
        "env_runners": len(results),
        "num_envs": trainer.config.num_envs,
        "per_runner": [round(r["decisions"] / r["seconds"]) for r in results],
        "steps_per_second": round(total),
    }


# --- the command line -----------------------------------------------------------------------


def _add_arguments(parser) -> None:
    parser.add_argument(
        "--measure",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="only measure: every runner samples for SECONDS; print the decisions/s",
    )
    parser.add_argument(
        "--export",
        nargs=2,
        metavar=("CHECKPOINT_DIR", "POLICY_PT"),
        default=None,
        help="convert a checkpoint/ directory to a kit policy file, then stop",
    )


# A count of workers >= 0, which a resumed run takes from its checkpoint unless given.
_SAVED_COUNT: dict[str, Any] = {
    "saved": True,
    "check": lambda value: value >= 0,
    "allowed": "an integer >= 0",
}

SPEC: Spec[PolicyRecord] = Spec(
    prog="python train/rllib_ppo.py",
    description="Masked self-play PPO for 101 on Ray RLlib (defaults: configs/train/ppo.yaml), "
    "locally or on a Ray cluster (--address).",
    checkpoint="runs/rllib/checkpoint",
    build=RLlibTrainer,
    read_checkpoint=rllib_checkpoint.read_checkpoint,
    outputs="checkpoint/, policy.pt, best.pt, evaluations.csv, summary.json, tb/",
    flags=(
        Flag("--env-runners", int, 2, "RLlib env runners, one CPU each", **_SAVED_COUNT),
        Flag("--gpus", int, 0, "learners on GPUs (0: one learner on the CPU)", **_SAVED_COUNT),
        Flag("--address", str, None, "a running Ray cluster: auto, HOST:PORT or ray://HOST:PORT"),
    ),
    # train/ppo.py's alone; the runners' env trains the league games only, and the learner
    # device is --gpus's
    unsupported={
        "self_play_games": 0,
        "anneal_lr": False,
        "target_kl": 0.0,
        "device": "cpu",
        "players_mix": (),
        "players_weights": (),
    },
    ignored=("overlap",),  # the env runners are its way of collecting beside the learner
    add_arguments=_add_arguments,
)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--export" in argv:
        return rllib_checkpoint.export_command(argv, SPEC.prog)
    if any(arg == "--measure" or arg.startswith("--measure=") for arg in argv):
        return _measure(argv)
    return session.main(SPEC, argv)


def _measure(argv: list[str]) -> int:
    trainer = None
    try:
        settings = parse(SPEC, argv)
        assert settings.args is not None  # parse() keeps the parsed command line
        trainer = RLlibTrainer(settings, Console(False))
        print(json.dumps(measure(trainer, settings.args.measure)), flush=True)
        return 0
    except user_errors() as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        if trainer is not None:
            trainer.close()


if __name__ == "__main__":
    # the runners unpickle this module's functions by reference: run it as train.rllib_ppo
    from train.rllib_ppo import main as _main

    sys.exit(_main())
