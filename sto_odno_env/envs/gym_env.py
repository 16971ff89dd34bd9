"""Gymnasium environments: one learner against opponent policies.

* :class:`StoOdnoEnv` (``gymnasium.make("StoOdno-v0", ...)``): one game; the learner sits
  in one seat (random every match by default, or ``learner_seat``), the other seats are
  played by ``opponents`` (policies of :mod:`sto_odno_env.bots.policy`, bots from ``agents``,
  or any ``(observation, mask) -> action`` callable). ``step`` returns the learner's own
  reward accumulated since its last decision. ``action_masks()`` serves sb3-contrib's
  MaskablePPO; the mask is also in ``info["action_mask"]``.
* :class:`StoOdnoVectorEnv`: ``num_envs`` games stepped at once on the batched engine, the
  opponents evaluated batched; a ``gymnasium.vector.VectorEnv``. ``autoreset_mode``
  (``metadata["autoreset_mode"]``) is ``"same_step"`` by default (``infos["final_obs"]``
  and ``infos["_final_obs"]`` hold the ended episodes' last observations) or
  ``"next_step"``, Gymnasium's default that RLlib expects (an ended episode's last
  observation is returned; the next step ignores that game's action and returns its new
  episode's first observation, reward 0). ``observation_keys=("observations",
  "action_mask")`` makes the observation a ``Dict`` of the vector and the float32 legal
  mask (RLlib's action-masking modules read those keys); the mask then leaves ``infos``.
  For stable-baselines3 use :class:`sto_odno_env.envs.sb3.StoOdnoVecEnv`.
  ``workers=W`` splits the games across W processes (:mod:`sto_odno_env.envs.sharded`).
  ``ready_share=s`` (off by default) lets a step return once a share ``s`` of the games is
  at the learner's turn: ``infos["ready"]`` marks them, the others carry zeros, reward 0,
  no end, and their actions in the next step are ignored while their opponents play on
  (:mod:`sto_odno_env.envs.learner`); a caller acts and records transitions for the ready
  games only.
  As with Gymnasium's ``SyncVectorEnv``, ``copy=False`` returns observations in a buffer
  that the next step rewrites (a few percent faster at large batches); by default every
  step returns new arrays.

Both take the table's settings as ``config=`` (a
:class:`~sto_odno_env.envs.table_config.TableConfig`:
rules, players, opponents, learner_seat, reward, illegal_action, workers, ready_share), or
as keyword arguments that build it; ``rules`` and ``players`` may come first by position.

Observations are the float32 vectors of :mod:`sto_odno_env.views.observation` (a ``Box``, so
``MlpPolicy`` works); rewards as in the AEC env (``reward="match"`` or ``"round"``).
An episode ends when the learner's match ends or the learner is eliminated. With
``illegal_action="penalize"`` an illegal action gives −1 and ends the episode (checkers
send unmasked random actions), ``info["illegal_action"]`` naming it as the AEC env's does
(the vector env: a flag per game); with ``"raise"`` (default) it raises
IllegalActionError. Every difference between the envs: docs/environments.md. A
value that is no action of the space (``99``, ``1.5``, ``"3"``, a float array) raises
:class:`~sto_odno_env.envs.table_config.ActionSpaceError` in both modes.
"""

from __future__ import annotations

from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..game.rules import Rules
from ..views.observation import observation_space
from ..views.render import render_game
from .aec import check_render_mode, render_modes
from .learner import LearnerGames
from .sharded import learner_games
from .table_config import (
    TableConfig,
    checked_action,
    checked_actions,
    illegal_message,
    table_config,
)


def check_num_envs(num_envs: Any) -> int:
    """``num_envs`` if it is a positive integer; a ValueError naming it otherwise."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
        raise ValueError(f"num_envs={num_envs!r} is not allowed; allowed: an integer >= 1")
    return int(num_envs)


def learner_observation_space(rules: Rules | str | None = None) -> spaces.Box:
    """The Box of one learner observation (the AEC env's ``observation`` entry), sized for
    ``rules`` (one more entry with ``last_card_call``; the classic size without rules)."""
    return cast(spaces.Box, observation_space(rules)["observation"])  # built as a Box


class StoOdnoEnv(gymnasium.Env):
    """Single-agent 101: the learner's seat against opponent policies (see module doc)."""

    # "rgb_array" only where Pillow is installed (aec.render_modes)
    metadata: dict[str, Any] = {"render_modes": render_modes(), "render_fps": 1}
    observation_space: spaces.Box
    action_space: spaces.Discrete

    def __init__(
        self,
        rules: str | Rules | None = None,
        players: int | None = None,
        *,
        render_mode: str | None = None,
        config: TableConfig | None = None,
        **settings: Any,
    ):
        check_render_mode(render_mode, self.metadata["render_modes"])
        config = table_config(config, rules=rules, players=players, **settings)
        if config.workers != 1:
            raise ValueError(
                f"workers={config.workers} is not allowed for StoOdnoEnv (one game); "
                "allowed: 1 (StoOdnoVectorEnv takes workers)"
            )
        self.games = LearnerGames(config=config)
        self.render_mode = render_mode
        self.observation_space = learner_observation_space(config.rules)
        self.action_space = spaces.Discrete(config.rules.num_actions)
        self._started = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2**62))
        observation = self.games.reset(seed=seed)[0].copy()
        self._started = True
        return observation, self._info()

    def step(self, action: object) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self._started:
            raise gymnasium.error.ResetNeeded(
                "step() before reset() or after the episode ended; call reset() first"
            )
        action = checked_action(action, self.action_space.n)
        legal_bits = int(self.games.legal_bits[0])  # for the message, should it be illegal
        result = self.games.step(np.array([action]))
        terminated = bool(result["terminated"][0])
        truncated = bool(result["truncated"][0])
        if terminated or truncated:
            # The learner's episode is over; the table already dealt the next match, which
            # reset() would replace, so step() needs a reset() first.
            self._started = False
            observation = result["final_observation"][0].copy()
        else:
            observation = result["observation"][0].copy()
        info = self._info()
        if result["illegal"][0]:  # the AEC env's message (docs/environments.md)
            info["illegal_action"] = illegal_message(legal_bits, action, self.config.rules)
        if self.render_mode == "human":
            self.render()
        return observation, float(result["reward"][0]), terminated, truncated, info

    @property
    def config(self) -> TableConfig:
        """The table's settings (:class:`~sto_odno_env.envs.table_config.TableConfig`)."""
        return self.games.config

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.games.masks()[0], "learner_seat": int(self.games.learner[0])}

    def action_masks(self) -> np.ndarray:
        """(A,) bool legal actions of the learner, A the rule set's number of actions
        (sb3-contrib's MaskablePPO)."""
        return self.games.masks()[0].astype(bool)

    # gymnasium types render() with a TypeVar bound to nothing (RenderFrame), which no
    # concrete return type matches
    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """The table as the learner sees it: text (``"ansi"``, ``"human"``) or an
        ``(H, W, 3)`` uint8 picture (``"rgb_array"``, :mod:`sto_odno_env.views.picture`)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        if self.render_mode == "rgb_array":
            from ..views.picture import table_rgb  # Pillow, imported only when a picture is drawn

            return table_rgb(self.games.state, 0, view=int(self.games.learner[0]))
        text = render_game(self.games.state, 0, show_seat=int(self.games.learner[0]))
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text


def _autoreset_mode(mode: Any) -> AutoresetMode:
    """``AutoresetMode.SAME_STEP`` or ``NEXT_STEP`` from the enum, its value (``"SameStep"``)
    or its name in lower case (``"same_step"``)."""
    for allowed in (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP):
        if mode is allowed or mode in (allowed.value, allowed.name.lower()):
            return allowed
    raise ValueError(
        f"autoreset_mode={mode!r} is not allowed; allowed: 'same_step', 'next_step' "
        "(or gymnasium.vector.AutoresetMode.SAME_STEP / NEXT_STEP)"
    )


class StoOdnoVectorEnv(VectorEnv):
    """``num_envs`` games on the batched engine, one learner seat each (see module doc)."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}
    single_action_space: spaces.Discrete

    def __init__(
        self,
        num_envs: int = 64,
        rules: str | Rules | None = None,
        players: int | None = None,
        *,
        copy: bool = True,
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
        observation_keys: tuple[str, str] | None = None,
        config: TableConfig | None = None,
        **settings: Any,
    ):
        num_envs = check_num_envs(num_envs)
        autoreset_mode = _autoreset_mode(autoreset_mode)
        if observation_keys is not None and (
            isinstance(observation_keys, str)
            or len(observation_keys) != 2
            or not all(isinstance(key, str) and key for key in observation_keys)
            or observation_keys[0] == observation_keys[1]
        ):
            raise ValueError(
                f"observation_keys={observation_keys!r} is not allowed; allowed: None or two "
                "different names, e.g. ('observations', 'action_mask')"
            )
        config = table_config(config, rules=rules, players=players, **settings)
        if autoreset_mode == AutoresetMode.NEXT_STEP and config.workers != 1:
            raise ValueError(
                f"autoreset_mode='next_step' with workers={config.workers} is not supported; "
                "allowed: workers=1 (run more vector envs instead, e.g. RLlib's env runners)"
            )
        self.games = learner_games(config, batch=num_envs, copy=copy)
        self.num_envs = num_envs
        self.autoreset_mode = autoreset_mode
        self.metadata = {**type(self).metadata, "autoreset_mode": autoreset_mode}
        self.observation_keys: tuple[str, ...] | None = (
            tuple(observation_keys) if observation_keys else None
        )
        self.single_observation_space = learner_observation_space(config.rules)
        actions = config.rules.num_actions  # from the deck and the last-card call
        if self.observation_keys is not None:
            vector_key, mask_key = self.observation_keys
            self.single_observation_space = spaces.Dict(
                {
                    vector_key: self.single_observation_space,
                    mask_key: spaces.Box(0.0, 1.0, (actions,), np.float32),
                }
            )
        self.single_action_space = spaces.Discrete(actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._started = False
        self._autoreset = np.zeros(num_envs, dtype=bool)  # next_step: to reset on the next step

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray | dict[str, np.ndarray], dict[str, Any]]:
        """Start every game. ``seed`` (int) seeds game ``b`` as the engine's game ``b``;
        a list gives one match seed per game."""
        if isinstance(seed, list | tuple | np.ndarray):
            observations = self.games.reset(seeds=np.asarray(seed, dtype=np.int64))
        else:
            observations = self.games.reset(seed=seed)
        self._started = True
        self._autoreset[:] = False
        if self.observation_keys is not None:
            return self._with_mask(observations), self._infos()
        return observations, self._infos()

    def step(
        self, actions: object
    ) -> tuple[
        np.ndarray | dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]
    ]:
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        if self.autoreset_mode == AutoresetMode.NEXT_STEP or self.observation_keys is not None:
            return self._step_keyed(actions)
        result = self.games.step(self._checked(actions))
        infos = self._infos()
        if result["final_observation"] is not None:
            ended = result["terminated"] | result["truncated"]
            infos["final_obs"] = result["final_observation"]
            infos["_final_obs"] = ended
        if result["illegal"].any():
            infos["illegal_action"] = result["illegal"]
        if self.games.config.ready_share is not None:
            infos["ready"] = result["ready"]
        # The games hand out new arrays every step: no copies needed.
        return (
            result["observation"],
            result["reward"],
            result["terminated"],
            result["truncated"],
            infos,
        )

    def _checked(self, actions: object) -> np.ndarray:
        """The actions as (num_envs,) int64, refused unless each is an integer of the
        action space (in every ``illegal_action`` mode)."""
        return checked_actions(actions, self.num_envs, self.single_action_space.n)

    def _step_keyed(
        self, actions: object
    ) -> tuple[
        np.ndarray | dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]
    ]:
        """``step`` with next-step auto-reset or a Dict observation (see module doc)."""
        next_step = self.autoreset_mode == AutoresetMode.NEXT_STEP
        skip = self._autoreset if next_step and self._autoreset.any() else None
        if skip is None:
            result = self.games.step(self._checked(actions))
        else:
            result = self.games.step(self._checked(actions), skip=skip)
        observations = result["observation"]
        ended = result["terminated"] | result["truncated"]
        infos = self._infos()
        if next_step:
            if result["final_observation"] is not None:
                if not self.games.copy:
                    observations = observations.copy()
                observations[ended] = result["final_observation"][ended]
            self._autoreset = ended
        elif result["final_observation"] is not None:
            infos["final_obs"] = result["final_observation"]
            infos["_final_obs"] = ended
            if self.observation_keys is not None:
                infos["final_obs"] = self._with_mask(result["final_observation"])
        if result["illegal"].any():
            infos["illegal_action"] = result["illegal"]
        if self.games.config.ready_share is not None:
            infos["ready"] = result["ready"]
        if self.observation_keys is not None:
            observations = self._with_mask(observations)
        return observations, result["reward"], result["terminated"], result["truncated"], infos

    def _with_mask(self, observations: np.ndarray) -> dict[str, np.ndarray]:
        """The Dict observation: the vectors and the learner's legal actions (float32; an
        ended episode's entry holds its game's next legal actions, never empty)."""
        assert self.observation_keys is not None  # called only with them
        vector_key, mask_key = self.observation_keys
        return {vector_key: observations, mask_key: self.games.masks().astype(np.float32)}

    def _infos(self) -> dict[str, Any]:
        if self.observation_keys is not None:  # the mask is in the observation
            return {"learner_seat": self.games.learner.astype(np.int64)}
        return {
            "action_mask": self.games.masks(),
            "learner_seat": self.games.learner.astype(np.int64),
        }

    def action_masks(self) -> np.ndarray:
        """(num_envs, A) bool legal actions of the learner in every game (A: the rule
        set's number of actions)."""
        return self.games.masks().astype(bool)

    @property
    def config(self) -> TableConfig:
        """The table's settings (:class:`~sto_odno_env.envs.table_config.TableConfig`)."""
        return self.games.config

    def set_opponents(self, opponents: Any) -> None:
        """Swap the opponent policies (e.g. for self-play with a frozen copy); registry
        names such as ``"expert"`` load that agent."""
        self.games.set_opponents(opponents)

    def close_extras(self, **kwargs: Any) -> None:
        if hasattr(getattr(self, "games", None), "close"):
            self.games.close()
