"""Train with sb3-contrib's MaskablePPO: ``python train/sb3_ppo.py`` (the SB3 path).

    python train/sb3_ppo.py [--config FILE] [--opponents NAME] [--no-progress]
        [--KEY VALUE ...] [key=value ...]

The same config, flags and run harness as ``train/ppo.py`` (``train/config.py``,
``train/run/session.py``: budget, evaluations, progress, Ctrl-C, the summary); its PPO keys map
onto MaskablePPO's: ``rollout_steps`` -> ``n_steps``, ``epochs`` -> ``n_epochs``,
``minibatch_size`` -> ``batch_size``, ``hidden`` -> ``net_arch``, ... SB3 plays against
fixed opponents, not a league, and has no warm start: ``--opponents`` names one agent for
every opponent seat (default ``expert``), and the ``league`` and ``warm_start`` keys are
not used. One update is one ``model.learn`` call of ``rollout_steps`` steps of every game;
it is never cut short (Ctrl-C waits for it). The model is ``model.zip`` in ``--out`` (the
best evaluated one ``best.zip``); ``agents.load("DIR/model.zip")`` plays it.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sto_odno_env.bots.checkpoint import SB3PolicyAgent
from sto_odno_env.tools import cli
from train import deferred_import
from train.config_keys import ConfigError
from train.run import session
from train.run.console import Console
from train.run.protocol import Counters, Flag, Record, Saved, Settings, Spec, Update

if TYPE_CHECKING:
    import torch
else:  # loaded on first use, so that a bad command line fails before torch's seconds of loading
    torch = deferred_import("torch")

# The captured state: the model's timesteps (the model itself is saved as it is, since an
# update is never cut short).
SB3Captured = dict[str, int]


class SB3Trainer:
    """MaskablePPO on :class:`sto_odno_env.envs.sb3.StoOdnoVecEnv`, one update per :meth:`train`."""

    interruptible = False  # SB3's learn() cannot be cut and continued
    policy_name = "model.zip"

    def __init__(self, settings: Settings, console: Console):
        from sb3_contrib import MaskablePPO

        from sto_odno_env.bots.registry import load as load_agent
        from sto_odno_env.envs.sb3 import StoOdnoVecEnv

        config = self.config = settings.config
        self.opponents = settings.flag("opponents", str)
        if config.threads:
            torch.set_num_threads(config.threads)
        opponent = load_agent(self.opponents, settings.rules, config.players, seed=config.seed)
        self.env = StoOdnoVecEnv(
            num_envs=config.num_envs,
            rules=settings.rules,
            players=config.players,
            opponents=opponent,
            reward=config.reward,
            seed=config.seed,
        )
        self.model = MaskablePPO(
            "MlpPolicy",
            self.env,
            n_steps=config.rollout_steps,
            batch_size=config.minibatch_size,
            target_kl=config.target_kl or None,
            policy_kwargs={"net_arch": list(config.hidden), "activation_fn": torch.nn.Tanh},
            seed=config.seed,
            device="cpu" if config.device == "cpu" else "auto",
            verbose=0,
            **config.ppo_keywords("sb3"),
        )

    def train(self, counters: Counters) -> Update:
        """One rollout of every game and one MaskablePPO update."""
        from stable_baselines3.common.callbacks import BaseCallback

        class CountMatches(BaseCallback):
            ended = 0

            def _on_step(self) -> bool:
                CountMatches.ended += int(self.locals["dones"].sum())
                return True

        config = self.config
        before = self.model.num_timesteps
        self.model.learn(
            config.rollout_steps * config.num_envs,
            callback=CountMatches(),
            reset_num_timesteps=False,
            # SB3 prints nothing; its statistics are read below. sb3-contrib types
            # log_interval int, but its learn() takes None for no logging.
            log_interval=None,  # type: ignore[arg-type]
        )
        values = self.model.logger.name_to_value
        stats = {key.split("/", 1)[1]: float(v) for key, v in values.items() if "/" in key}
        return Update(self.model.num_timesteps - before, CountMatches.ended, stats)

    def warm_start(self, console: Console) -> dict[str, float]:
        """Never called: SPEC ignores ``warm_start`` (the harness counts it as done)."""
        raise NotImplementedError("train/sb3_ppo.py has no warm start")

    def warm_start_seconds(self) -> float:
        """Never called (see :meth:`warm_start`)."""
        raise NotImplementedError("train/sb3_ppo.py has no warm start")

    # --- the run harness's side -------------------------------------------------------------

    def capture(self) -> SB3Captured:
        """The model as it is (an update is never cut short)."""
        return {"timesteps": self.model.num_timesteps}

    def policy_agent(self, captured: SB3Captured) -> SB3PolicyAgent:
        return SB3PolicyAgent(self.model)

    def write_policy(self, captured: SB3Captured, path: Path) -> None:
        """``model.save`` written whole or not at all (the kit's atomic write)."""
        with cli.atomic_open(path, "wb") as handle:
            assert isinstance(handle, io.BufferedIOBase)  # "wb": a BufferedWriter
            self.model.save(handle)

    def write_checkpoint(self, captured: SB3Captured, counters: Counters, out: Path) -> Path:
        path = out / self.policy_name  # the model is its own checkpoint (no --resume)
        self.write_policy(captured, path)
        return path

    def scores(self, captured: SB3Captured) -> dict[str, float]:
        return {}

    def describe(self) -> str:
        config = self.config
        return (
            f"MaskablePPO, {config.num_envs} games x {config.rollout_steps} steps per update "
            f"against {self.opponents}, MLP {list(config.hidden)} (league and warm_start not "
            "used)"
        )

    def extra_summary(self) -> Record:
        return {"opponents": self.opponents}

    def close(self) -> None:
        self.env.close()


def _no_resume(path: Path) -> Saved:
    raise ConfigError("train/sb3_ppo.py cannot resume a run; allowed: no --resume")


SPEC: Spec[SB3Captured] = Spec(
    prog="python train/sb3_ppo.py",
    description="MaskablePPO (sb3-contrib) on the batched vector env, against fixed "
    "opponents (defaults: configs/train/ppo.yaml); writes model.zip.",
    checkpoint="(not supported)",
    build=SB3Trainer,
    read_checkpoint=_no_resume,
    outputs="model.zip, best.zip, evaluations.csv, summary.json, tb/",
    flags=(Flag("--opponents", str, "expert", "the agent in every opponent seat"),),
    unsupported={
        "self_play_games": 0,
        "anneal_lr": False,
        "players_mix": (),
        "players_weights": (),
    },
    ignored=("warm_start", "league", "overlap"),
)


def main(argv: list[str] | None = None) -> int:
    return session.main(SPEC, argv)


if __name__ == "__main__":
    sys.exit(main())
