"""Trained policies as agents: our policy files and stable-baselines3 / sb3-contrib zips.

* ``*.pt`` — a policy file written by :func:`save_policy`: a torch file holding
  ``{"format": "sto-odno-policy", "version": 1, "obs_size", "hidden", "num_actions",
  "state_dict", "rules"}``, an MLP (tanh) from the observation vector to action logits.
* ``*.zip`` — a model saved by stable-baselines3 or sb3-contrib (MaskablePPO, PPO, ...),
  loaded on the CPU.

Both act greedily on the masked logits (``deterministic=True``); torch is needed (the
``train`` extra). Every failure raises :class:`CheckpointError` naming the file and what
is wrong with it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sto_odno_env.cards import NUM_ACTIONS
from sto_odno_env.observation import OBS_SIZE
from sto_odno_env.policy import BasePolicy

FORMAT = "sto-odno-policy"
VERSION = 1


class CheckpointError(ValueError):
    """A policy file that is missing, unreadable or not a policy."""


def _torch():
    try:
        import torch
    except ImportError:  # pragma: no cover - depends on the install
        raise CheckpointError(
            "loading a trained policy needs torch: pip install -e '.[train]'"
        ) from None
    return torch


def build_network(obs_size: int, hidden: list[int], num_actions: int):
    """The MLP of a policy file: Linear+tanh layers, then a linear head to the logits."""
    torch = _torch()
    layers: list[Any] = []
    width = obs_size
    for size in hidden:
        layers += [torch.nn.Linear(width, size), torch.nn.Tanh()]
        width = size
    layers.append(torch.nn.Linear(width, num_actions))
    return torch.nn.Sequential(*layers)


def save_policy(path: str | Path, network, hidden: list[int], rules: dict | None = None) -> None:
    """Write a policy file that :func:`load` reads back."""
    torch = _torch()
    torch.save(
        {
            "format": FORMAT,
            "version": VERSION,
            "obs_size": OBS_SIZE,
            "hidden": list(hidden),
            "num_actions": NUM_ACTIONS,
            "state_dict": network.state_dict(),
            "rules": rules,
        },
        Path(path),
    )


class TorchPolicyAgent(BasePolicy):
    """Greedy actions of a policy network over the legal actions."""

    name = "checkpoint"

    def __init__(self, network, path: str = ""):
        self.network = network.eval()
        self.path = path

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        torch = _torch()
        with torch.no_grad():
            logits = self.network(torch.as_tensor(np.asarray(observations, np.float32)))
        logits = logits.numpy()
        logits[np.asarray(masks) == 0] = -np.inf
        return np.argmax(logits, axis=1)


class SB3PolicyAgent(BasePolicy):
    """A stable-baselines3 / sb3-contrib model: the most likely legal action under its
    policy (illegal actions masked out of the logits, whether or not it was trained with
    masks)."""

    name = "checkpoint"

    def __init__(self, model, path: str = ""):
        self.model = model
        self.path = path

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        torch = _torch()
        policy = self.model.policy
        with torch.no_grad():
            obs_tensor, _ = policy.obs_to_tensor(np.asarray(observations, np.float32))
            logits = policy.get_distribution(obs_tensor).distribution.logits.cpu().numpy()
        logits[np.asarray(masks) == 0] = -np.inf
        return np.argmax(logits, axis=1)


def load(path: str | Path) -> BasePolicy:
    """An agent from a policy file (``.pt``) or an SB3 zip (``.zip``)."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {str(path)!r} does not exist")
    if path.suffix == ".zip":
        return _load_sb3(path)
    torch = _torch()
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds for a bad file
        raise CheckpointError(
            f"checkpoint {str(path)!r} is not a readable torch file: "
            f"{type(error).__name__}: {error}"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(
            f"checkpoint {str(path)!r} is not a {FORMAT} file (no 'format': {FORMAT!r} entry)"
        )
    if data.get("version") != VERSION:
        raise CheckpointError(
            f"checkpoint {str(path)!r} has version {data.get('version')!r}; allowed: {VERSION}"
        )
    if data.get("obs_size") != OBS_SIZE or data.get("num_actions") != NUM_ACTIONS:
        raise CheckpointError(
            f"checkpoint {str(path)!r} was trained for observations of {data.get('obs_size')} "
            f"and {data.get('num_actions')} actions; this env has {OBS_SIZE} and {NUM_ACTIONS}"
        )
    network = build_network(OBS_SIZE, list(data.get("hidden", [])), NUM_ACTIONS)
    try:
        network.load_state_dict(data["state_dict"])
    except (KeyError, RuntimeError) as error:
        raise CheckpointError(
            f"checkpoint {str(path)!r} has weights that do not fit its network: {error}"
        ) from None
    return TorchPolicyAgent(network, str(path))


def _load_sb3(path: Path) -> BasePolicy:
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3 import PPO
    except ImportError:  # pragma: no cover - depends on the install
        raise CheckpointError(
            "loading an SB3 zip needs the train extra: pip install -e '.[train]'"
        ) from None
    errors = []
    for model_class in (MaskablePPO, PPO):
        try:
            model = model_class.load(path, device="cpu")
        except Exception as error:  # each class fails differently on a foreign zip
            errors.append(f"{model_class.__name__}: {type(error).__name__}: {error}")
            continue
        shape = getattr(model.observation_space, "shape", None)
        actions = getattr(model.action_space, "n", None)
        if shape != (OBS_SIZE,) or actions != NUM_ACTIONS:
            raise CheckpointError(
                f"checkpoint {str(path)!r} was trained for observations {shape} and "
                f"{actions} actions; this env has ({OBS_SIZE},) and {NUM_ACTIONS}"
            )
        return SB3PolicyAgent(model, str(path))
    raise CheckpointError(
        f"checkpoint {str(path)!r} is not a MaskablePPO or PPO zip ({'; '.join(errors)})"
    )
