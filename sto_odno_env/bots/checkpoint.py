"""Trained policies as agents: our policy files and stable-baselines3 / sb3-contrib zips.

* ``*.pt`` — a policy file written by :func:`save_policy` (or by ``train/ppo.py``, whose
  checkpoints add a ``"training"`` entry): a torch file of plain data, read with
  ``torch.load(weights_only=True)`` so loading never runs code from it. Version 2 holds
  ``{"format": "sto-odno-policy", "version": 2, "obs_size", "hidden", "num_actions",
  "state_dict", "rules", "players", "observation_version", "package_version"}``: an MLP
  (tanh) from the observation vector to action logits, and what it was trained for.
  Optionally ``"value_state_dict"`` and ``"value_reward"``: the critic trained beside it
  (the same MLP with one output, the seat's expected return) and the reward mode it
  estimates (``"match"``, ``"round"`` or ``"first"``); the loaded agent then has a
  :attr:`TorchPolicyAgent.value_network`, which ``search``'s ``outcome=value`` uses.
  Version 1 files (no players or versions) still load.
* ``*.zip`` — a model saved by stable-baselines3 or sb3-contrib (MaskablePPO, PPO, ...),
  loaded on the CPU.

Both act greedily on the masked logits (``deterministic=True``); torch is needed (the
``train`` extra). Every failure raises :class:`CheckpointError` naming the file and what
is wrong with it.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from .._version import __version__ as PACKAGE_VERSION
from ..game.rules import Rules, RulesError, load_rules
from ..tools.cli import atomic_open, require
from ..tools.errors import StoOdnoError
from ..views.observation import OBSERVATION_VERSION, obs_size
from .policy import BasePolicy

FORMAT = "sto-odno-policy"
VERSION = 2
READABLE_VERSIONS = (1, 2)
VALUE_REWARDS = ("match", "round", "first")  # the reward modes a shipped critic may estimate


class CheckpointError(StoOdnoError):
    """A policy file that is missing, unreadable or not a policy."""


def _torch():
    return require("torch", "loading a trained policy needs torch", "train", CheckpointError)


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


def policy_record(
    network, hidden: list[int], rules: dict | None = None, players: list[int] | None = None
) -> dict[str, Any]:
    """The plain-data entries of a policy file (weights copied to the CPU); the network's
    sizes are those of ``rules`` (the classic sizes when no rules are given)."""
    obs_width, num_actions = network_sizes(rules)
    return {
        "format": FORMAT,
        "version": VERSION,
        "obs_size": obs_width,
        "hidden": list(hidden),
        "num_actions": num_actions,
        "state_dict": _cpu_copy(network.state_dict()),
        "rules": rules,
        "players": list(players) if players is not None else None,
        "observation_version": OBSERVATION_VERSION,
        "package_version": PACKAGE_VERSION,
    }


def _cpu_copy(state_dict) -> dict[str, Any]:
    return {key: value.detach().cpu().clone() for key, value in state_dict.items()}


def with_value(data: dict[str, Any], critic_state: dict[str, Any], reward: str) -> dict[str, Any]:
    """A policy file's entries ``data`` with a critic's weights ``critic_state`` (the MLP of
    the policy with one output) and the reward mode it was trained on added."""
    if reward not in VALUE_REWARDS:
        raise CheckpointError(
            f"value reward {reward!r} is unknown; allowed: {', '.join(VALUE_REWARDS)}"
        )
    return {**data, "value_state_dict": _cpu_copy(critic_state), "value_reward": reward}


def network_sizes(rules: Rules | dict | str | None) -> tuple[int, int]:
    """(observation size, number of actions) of a rule set's policy network (the classic
    rules' without one); a rule set with ``last_card_call`` has one more of each, and the
    sizes follow the deck."""
    rule_set = load_rules("classic" if rules is None else rules)
    return obs_size(rule_set), rule_set.num_actions


def write_atomic(path: str | Path, data: dict[str, Any]) -> None:
    """``torch.save`` to a temporary file beside ``path``, then rename
    (:func:`~sto_odno_env.tools.cli.atomic_open`): a file that exists is always whole, even
    when the writer is stopped midway."""
    torch = _torch()
    with atomic_open(path, "wb") as handle:
        torch.save(data, handle)


def save_policy(
    path: str | Path,
    network,
    hidden: list[int],
    rules: dict | None = None,
    players: list[int] | None = None,
) -> None:
    """Write a policy file that :func:`load` reads back."""
    write_atomic(path, policy_record(network, hidden, rules, players))


def read(path: str | Path) -> dict[str, Any]:
    """The checked contents of a policy file (see the module docstring)."""
    path = Path(path)
    if not path.is_file():
        what = "is a directory, not a file" if path.is_dir() else "does not exist"
        raise CheckpointError(f"checkpoint {str(path)!r} {what}")
    torch = _torch()
    try:
        with warnings.catch_warnings():  # torch warns about a foreign pickle's protocol
            warnings.simplefilter("ignore")
            data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds for a bad file
        raise CheckpointError(_not_ours(path, _unreadable(error))) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        what = "no 'format' entry" if isinstance(data, dict) else f"a {type(data).__name__}"
        raise CheckpointError(_not_ours(path, f"it holds {what}"))
    if data.get("version") not in READABLE_VERSIONS:
        raise CheckpointError(
            f"checkpoint {str(path)!r} has version {data.get('version')!r}; allowed: "
            f"{', '.join(map(str, READABLE_VERSIONS))}"
        )
    try:
        expected = network_sizes(data.get("rules"))
    except RulesError as error:
        raise CheckpointError(f"checkpoint {str(path)!r} holds bad rules: {error}") from None
    if (data.get("obs_size"), data.get("num_actions")) != expected:
        raise CheckpointError(
            f"checkpoint {str(path)!r} was trained for observations of {data.get('obs_size')} "
            f"and {data.get('num_actions')} actions; its rules' env has {expected[0]} and "
            f"{expected[1]}"
        )
    observation_version = data.get("observation_version", 1)
    if observation_version != OBSERVATION_VERSION:
        raise CheckpointError(
            f"checkpoint {str(path)!r} was trained on observation layout version "
            f"{observation_version!r}; this env has version {OBSERVATION_VERSION}"
        )
    return data


EXPECTED = (
    f"expected a torch file of tensors and plain data with 'format': {FORMAT!r}, as "
    "save_policy, train/ppo.py and train/ship.py write"
)


def _not_ours(path: Path, reason: str) -> str:
    """The one line for a file that is not a policy or checkpoint of this kit."""
    return f"{str(path)!r} is not a policy or checkpoint of this kit: {reason}; {EXPECTED}"


def _unreadable(error: Exception) -> str:
    """Why ``torch.load(weights_only=True)`` refused a file, in the kit's words: torch's own
    message advises loading with ``weights_only=False``, which would run the file's code,
    so it is never passed on."""
    found = re.search(r"Unsupported global: GLOBAL ([\w.]+)", str(error))
    if found:
        return (
            f"it holds Python objects ({found.group(1)}), which are never loaded (loading "
            "them could run code from the file)"
        )
    return "it is not a readable torch file (truncated, corrupt or another format)"


def check_fits(
    data: dict[str, Any], path: str | Path, rules: Rules | None, players: int | None
) -> None:
    """Raise :class:`CheckpointError` when the policy was trained for other rules or
    another player count than the ones asked for (files that do not say are accepted)."""
    saved_rules = data.get("rules")
    if rules is not None and saved_rules is not None:
        try:
            trained = load_rules(saved_rules)
        except RulesError as error:
            raise CheckpointError(f"checkpoint {str(path)!r} holds bad rules: {error}") from None
        if not plays_alike(trained, rules):
            names = (
                f"rules {trained.name!r}, not {rules.name!r}"
                if trained.name != rules.name
                else f"other rules than these (both named {rules.name!r})"
            )
            raise CheckpointError(
                f"checkpoint {str(path)!r} was trained for {names} (they differ in "
                f"{', '.join(_differences(trained, rules))}); "
                "load it with the rules it was trained for"
            )
    saved_players = data.get("players")
    if players is not None and saved_players and players not in saved_players:
        raise CheckpointError(
            f"checkpoint {str(path)!r} was trained for {'/'.join(map(str, saved_players))} "
            f"players, not {players}"
        )


def _rule_keys(rules: Rules) -> dict[str, Any]:
    keys = rules.to_dict()
    keys.pop("name", None)
    return keys


def plays_alike(first: Rules, second: Rules) -> bool:
    """Whether a policy trained for ``first`` plays ``second``: the same rules but for the
    name (a variant that changes nothing but its name plays alike)."""
    return _rule_keys(first) == _rule_keys(second)


def _differences(first: Rules, second: Rules) -> list[str]:
    a, b = _rule_keys(first), _rule_keys(second)
    return sorted(key for key in a.keys() | b.keys() if a.get(key) != b.get(key))


class TorchPolicyAgent(BasePolicy):
    """Greedy actions of a policy network over the legal actions."""

    name = "checkpoint"

    def __init__(self, network, path: str = "", value_network=None, value_reward: str = "match"):
        self.network = network.eval()
        self.path = path
        #: The critic shipped with the policy (observation -> expected return under
        #: ``value_reward``), or None where the file holds none.
        self.value_network = value_network.eval() if value_network is not None else None
        self.value_reward = value_reward

    def values(self, observations: np.ndarray) -> np.ndarray:
        """(n,) the critic's expected return of each observation's seat (float64)."""
        if self.value_network is None:
            where = f" {self.path!r}" if self.path else ""
            raise ValueError(f"policy{where} was shipped without a value network")
        torch = _torch()
        with torch.no_grad():
            value = self.value_network(torch.as_tensor(np.asarray(observations, np.float32)))
        return value.squeeze(-1).numpy().astype(np.float64)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        torch = _torch()
        observations = np.asarray(observations, np.float32)
        masks = np.asarray(masks)
        widths = (self.network[0].in_features, self.network[-1].out_features)
        if observations.shape[-1] != widths[0] or masks.shape[-1] != widths[1]:
            where = f" {self.path!r}" if self.path else ""
            raise ValueError(
                f"policy{where} takes observations of {widths[0]} and {widths[1]} actions; "
                f"this env gives {observations.shape[-1]} and {masks.shape[-1]} (another "
                "deck or the last-card call): load it with the rules it was trained for"
            )
        with torch.no_grad():
            logits = self.network(torch.as_tensor(observations))
        logits = logits.numpy()
        logits[masks == 0] = -np.inf
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


def load(
    path: str | Path, rules: Rules | str | None = None, players: int | None = None
) -> BasePolicy:
    """An agent from a policy file (``.pt``) or an SB3 zip (``.zip``); with ``rules`` or
    ``players``, a policy trained for others is refused."""
    path = Path(path)
    if path.suffix == ".zip" and path.is_file():
        return _load_sb3(path, rules)
    if path.suffix == ".npz" and path.is_file():  # a strategy solved exactly, a table
        from .tabular import TabularPolicyError, load_tabular

        try:
            return load_tabular(path, rules, players)
        except TabularPolicyError as error:
            raise CheckpointError(str(error)) from None
    data = read(path)
    check_fits(data, path, load_rules(rules) if rules is not None else None, players)
    network = _network(data, path, "state_dict", data["num_actions"], "weights")
    if "value_state_dict" not in data:
        return TorchPolicyAgent(network, str(path))
    reward = data.get("value_reward")
    if reward not in VALUE_REWARDS:
        raise CheckpointError(
            f"checkpoint {str(path)!r} has value reward {reward!r}; allowed: "
            f"{', '.join(VALUE_REWARDS)}"
        )
    critic = _network(data, path, "value_state_dict", 1, "value weights")
    return TorchPolicyAgent(network, str(path), value_network=critic, value_reward=reward)


def _network(data: dict, path: Path, key: str, outputs: int, what: str):
    """The MLP of ``data``'s sizes with ``outputs`` outputs, loaded from ``data[key]``
    (``what`` names those weights in the error)."""
    network = build_network(data["obs_size"], list(data.get("hidden", [])), outputs)
    try:
        network.load_state_dict(data[key])
    except KeyError:
        raise CheckpointError(f"checkpoint {str(path)!r} has {what} missing ({key!r})") from None
    except RuntimeError as error:  # torch names each mismatch on a line of its own
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        details = lines[1:] or lines
        more = f" (and {len(details) - 1} more)" if len(details) > 1 else ""
        raise CheckpointError(
            f"checkpoint {str(path)!r} has {what} that do not fit its network: {details[0]}{more}"
        ) from None
    return network


def _load_sb3(path: Path, rules: Rules | str | None) -> BasePolicy:
    """An SB3 zip as an agent, refused unless its spaces are those of ``rules`` (the
    classic rules without them)."""
    needs = "loading an SB3 zip needs the train extra"
    errors = []
    for module, name in (("sb3_contrib", "MaskablePPO"), ("stable_baselines3", "PPO")):
        model_class = getattr(require(module, needs, "train", CheckpointError), name)
        try:
            model = model_class.load(path, device="cpu")
        except Exception as error:  # each class fails differently on a foreign zip
            errors.append(f"{model_class.__name__}: {type(error).__name__}: {error}")
            continue
        shape = getattr(model.observation_space, "shape", None)
        actions = getattr(model.action_space, "n", None)
        width, count = network_sizes(rules)
        if shape != (width,) or actions != count:
            raise CheckpointError(
                f"checkpoint {str(path)!r} was trained for observations {shape} and "
                f"{actions} actions; these rules' env has ({width},) and {count}"
            )
        return SB3PolicyAgent(model, str(path))
    raise CheckpointError(
        f"checkpoint {str(path)!r} is not a MaskablePPO or PPO zip ({'; '.join(errors)})"
    )
