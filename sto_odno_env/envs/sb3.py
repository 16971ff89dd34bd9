"""A stable-baselines3 ``VecEnv`` over the batched engine (needs the ``train`` extra).

    from sb3_contrib import MaskablePPO
    from sto_odno_env.envs.sb3 import StoOdnoVecEnv

    vec_env = StoOdnoVecEnv(num_envs=256, rules="classic", players=2)
    model = MaskablePPO("MlpPolicy", vec_env).learn(10_000)

``env_method("action_masks")`` returns every game's mask, which is what MaskablePPO asks
for. Ended episodes reset at once; ``infos[i]["terminal_observation"]`` holds the last
observation and ``infos[i]["TimeLimit.truncated"]`` marks truncation (docs/rules.md §8).
``workers=W`` steps the games in W processes (:mod:`sto_odno_env.envs.sharded`).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from ..game.rules import Rules
from .gym_env import check_num_envs, learner_observation_space
from .sharded import learner_games
from .table_config import (
    ActionSpaceError,
    TableConfig,
    checked_actions,
    illegal_message,
    table_config,
)


class StoOdnoVecEnv(VecEnv):
    """B games, one learner seat each, opponents batched (see the module docstring)."""

    action_space: spaces.Discrete

    def __init__(
        self,
        num_envs: int = 64,
        rules: str | Rules | None = None,
        players: int | None = None,
        *,
        seed: int | None = None,
        config: TableConfig | None = None,
        **settings: Any,
    ):
        num_envs = check_num_envs(num_envs)
        config = table_config(config, rules=rules, players=players, **settings)
        if config.ready_share is not None:
            # SB3 stores one transition per env per step: a game left out of a step has none
            raise ValueError(
                f"ready_share={config.ready_share!r} is not allowed in StoOdnoVecEnv: SB3 "
                "expects every env to step each time; allowed: None (use StoOdnoVectorEnv "
                "for ready_share)"
            )
        self.games = learner_games(config, batch=num_envs, seed=seed)
        super().__init__(
            num_envs,
            learner_observation_space(config.rules),
            spaces.Discrete(config.rules.num_actions),
        )
        self._actions: np.ndarray | None = None
        self._seed: int | None = seed

    def reset(self) -> np.ndarray:
        observations = self.games.reset(seed=self._seed)
        self._seed = None
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        # Refused here, in the caller's step, unless each is an integer of the action space.
        self._actions = checked_actions(actions, self.num_envs, self.action_space.n)

    def step_wait(self) -> VecEnvStepReturn:
        actions = self._actions
        if actions is None:
            raise ActionSpaceError("no actions: call step_async(actions) before step_wait()")
        legal_bits = self.games.legal_bits.copy()  # for the messages of illegal actions
        result = self.games.step(actions)
        dones = result["terminated"] | result["truncated"]
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for game in np.flatnonzero(dones):
            infos[game]["terminal_observation"] = result["final_observation"][game].copy()
            infos[game]["TimeLimit.truncated"] = bool(result["truncated"][game])
        for game in np.flatnonzero(result["illegal"]):  # the AEC env's message, per game
            message = illegal_message(legal_bits[game], actions[game], self.config.rules)
            infos[game]["illegal_action"] = message
        return (result["observation"], result["reward"], dones, infos)

    def seed(self, seed: int | None = None) -> list[int | None]:
        self._seed = seed
        return [seed] * self.num_envs

    def close(self) -> None:
        if hasattr(self.games, "close"):
            self.games.close()

    def action_masks(self) -> np.ndarray:
        """(num_envs, A) bool masks of the learner (A: the rule set's number of actions)."""
        return self.games.masks().astype(bool)

    # --- the VecEnv plumbing ----------------------------------------------------------------

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """Per-game results of a method; ``"action_masks"`` is served from the batch."""
        chosen = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in chosen]
        method = getattr(self, method_name)
        return [method(*method_args, **method_kwargs) for _ in chosen]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        if attr_name == "render_mode":
            return [None for _ in self._indices(indices)]
        return [getattr(self, attr_name) for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_is_wrapped(
        self,
        wrapper_class: type[gymnasium.Wrapper],
        indices: VecEnvIndices = None,
    ) -> list[bool]:
        return [False for _ in self._indices(indices)]

    @property
    def config(self) -> TableConfig:
        """The table's settings (:class:`~sto_odno_env.envs.table_config.TableConfig`)."""
        return self.games.config

    def set_opponents(self, opponents: Any) -> None:
        """Swap the opponent policies (e.g. for self-play with a frozen copy); registry
        names such as ``"expert"`` load that agent."""
        self.games.set_opponents(opponents)
