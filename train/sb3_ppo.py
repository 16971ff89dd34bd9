"""Train with sb3-contrib's MaskablePPO: ``python train/sb3_ppo.py`` (the SB3 path).

    python train/sb3_ppo.py [--config FILE] [--rules R] [--players P] [--total-steps N]
        [--minutes M] [--num-envs B] [--seed S] [--device cpu|cuda|auto] [--out DIR]
        [--opponents NAME] [key=value ...]

Same config file and flags as ``train/ppo.py`` (its PPO keys map onto MaskablePPO's:
``rollout_steps`` -> ``n_steps``, ``epochs`` -> ``n_epochs``, ``minibatch_size`` ->
``batch_size``, ``hidden`` -> ``net_arch``, ...). SB3 plays against fixed opponents, not
a league: ``--opponents`` names one agent for every opponent seat (default ``expert``).
The model is saved as ``model.zip`` in ``--out``; ``agents.load("DIR/model.zip")`` plays it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch

from agents.checkpoint import SB3PolicyAgent
from agents.registry import AgentError
from agents.registry import load as load_agent
from sto_odno_env.rules import RulesError, load_rules
from train.config import ConfigError, flag_values, load_config
from train.evaluation import evaluate
from train.ppo import FLAGS, write_evaluations


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python train/sb3_ppo.py",
        description="MaskablePPO (sb3-contrib) on the batched vector env; writes model.zip.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--config", default=None, help="training config YAML")
    for flag, (_, kind, text) in FLAGS.items():
        parser.add_argument(flag, type=str, default=None, help=f"{text} ({kind.__name__})")
    parser.add_argument("--opponents", default="expert", help="agent in every opponent seat")
    parser.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    return parser.parse_intermixed_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        config = load_config(args.config, flag_values(args, FLAGS), args.overrides)
        rules = load_rules(config["rules"])
        rules.check_players(config["players"])
        opponent = load_agent(args.opponents, rules, config["players"], seed=config["seed"])
    except (ConfigError, RulesError, AgentError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from sto_odno_env.sb3 import StoOdnoVecEnv

    if config["threads"]:
        torch.set_num_threads(config["threads"])
    out = Path(config["out"])
    out.mkdir(parents=True, exist_ok=True)
    env = StoOdnoVecEnv(
        num_envs=config["num_envs"],
        rules=rules,
        players=config["players"],
        opponents=opponent,
        reward=config["reward"],
        seed=config["seed"],
    )
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=config["rollout_steps"],
        batch_size=config["minibatch_size"],
        n_epochs=config["epochs"],
        learning_rate=config["learning_rate"],
        gamma=config["gamma"],
        gae_lambda=config["gae_lambda"],
        clip_range=config["clip_coef"],
        ent_coef=config["ent_coef"],
        vf_coef=config["vf_coef"],
        max_grad_norm=config["max_grad_norm"],
        target_kl=config["target_kl"] or None,
        policy_kwargs={"net_arch": list(config["hidden"]), "activation_fn": torch.nn.Tanh},
        seed=config["seed"],
        device="cpu" if config["device"] == "cpu" else "auto",
        tensorboard_log=str(out / "tb"),
        verbose=0,
    )
    budget = config["minutes"] * 60 if config["minutes"] else float("inf")
    started = time.perf_counter()
    name = config["eval_opponent"]
    evaluator = load_agent(name, rules, config["players"])
    rows: list[dict] = []

    def evaluate_now(steps: int, training_seconds: float) -> str:
        # The same duplicate deals as train/ppo.py, so the two curves compare.
        result = evaluate(
            SB3PolicyAgent(model),
            evaluator,
            name,
            rules,
            config["players"],
            config["eval_matches"],
            seed=config["seed"] + 100_003,
        )
        rows.append(result.row(len(rows), steps, training_seconds / 60))
        write_evaluations(out / "evaluations.csv", rows)
        return result.describe()

    class Budget(BaseCallback):
        """Stops at the wall-clock budget; prints progress and evaluates periodically."""

        evaluating = 0.0  # seconds spent evaluating, left out of the training minutes
        last_eval = started

        def _on_step(self) -> bool:
            return time.perf_counter() - started - self.evaluating < budget

        def _on_rollout_end(self) -> None:
            now = time.perf_counter()
            seconds = now - started - self.evaluating
            line = (
                f"step {self.num_timesteps:,} ({seconds / 60:.1f} min, "
                f"{self.num_timesteps / seconds:,.0f} steps/s)"
            )
            every = 60 * config["eval_every_minutes"]
            if every and now - self.last_eval >= every:
                line += ": " + evaluate_now(self.num_timesteps, seconds)
                self.last_eval = time.perf_counter()
                self.evaluating += self.last_eval - now
            print(line, flush=True)

    callback = Budget()
    try:
        model.learn(config["total_steps"], callback=callback)
    except KeyboardInterrupt:
        print("interrupted: saving the model")
    model.save(out / "model.zip")
    seconds = time.perf_counter() - started - callback.evaluating
    load_agent(str(out / "model.zip"), rules, config["players"])  # the zip loads back
    print(
        f"{model.num_timesteps:,} steps in {seconds / 60:.1f} min "
        f"({model.num_timesteps / seconds:,.0f} steps/s); "
        f"{evaluate_now(model.num_timesteps, seconds)}; saved {out / 'model.zip'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
