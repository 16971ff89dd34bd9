"""RLlib's ``PPOConfig`` for a kit ``TrainConfig`` (:func:`algorithm_config`), as
``train/rllib_ppo.py`` builds its algorithm from it: the env each runner steps (registered
as :data:`ENV_NAME`, built from :func:`env_config_of`), its runners and learners, the PPO
settings and the kit's RLModule.

Ray is imported on first use, not by importing this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sto_odno_env.game.rules import Rules
from train.config_keys import TrainConfig
from train.rllib.env import make_env
from train.rllib.module import module_class

if TYPE_CHECKING:
    from ray.rllib.algorithms.ppo import PPOConfig

ENV_NAME = "sto_odno_league"


def env_config_of(config: TrainConfig, rules: Rules) -> dict[str, Any]:
    """What every runner's env is built from (plain data: RLlib copies it to the runners)."""
    return {
        "rules": rules.to_dict(),
        "players": config.players,
        "reward": config.reward,
        "hidden": list(config.hidden),
        "league": config.to_dict()["league"],
        "seed": config.seed,
        "threads": config.threads,
    }


def algorithm_config(config: TrainConfig, rules: Rules, env_runners: int, gpus: int) -> PPOConfig:
    """RLlib's PPOConfig for the training config."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    register_env(ENV_NAME, make_env)
    num_envs, steps = config.num_envs, config.rollout_steps
    batch = num_envs * steps * max(env_runners, 1)
    # AlgorithmConfig.learners' keyword arguments (each of its parameter's type)
    learners: dict[str, Any] = {"num_learners": 0}
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
            **config.ppo_keywords("rllib"),
            grad_clip_by="global_norm",
            minibatch_size=min(config.minibatch_size, batch),
            train_batch_size_per_learner=batch // max(gpus, 1),
            use_kl_loss=False,
            vf_clip_param=1e6,
        )
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=module_class(), model_config={"hidden": list(config.hidden)}
            )
        )
        .debugging(seed=config.seed, log_level="ERROR")
    )
