"""The training config: ``configs/train/ppo.yaml``, command-line flags and ``key=value``
overrides, checked once before any work starts.

Every key has a type and a range in :data:`SCHEMA`; an unknown key, a value of the wrong
type or out of range raises :class:`ConfigError` naming the key, the value and what is
allowed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / "configs" / "train" / "ppo.yaml"
BOTS = ("expert", "greedy", "random")


class ConfigError(ValueError):
    """A training config key or value that is not allowed."""


@dataclass(frozen=True)
class Key:
    """One config key: its type, a check of its value, and what the check allows."""

    kind: type | tuple[type, ...]
    check: Callable[[Any], bool] = lambda value: True
    allowed: str = ""


def _positive(value: Any) -> bool:
    return value > 0


def _non_negative(value: Any) -> bool:
    return value >= 0


def _fraction(value: Any) -> bool:
    return 0 <= value <= 1


def _widths(value: Any) -> bool:
    return len(value) >= 1 and all(
        isinstance(width, int) and not isinstance(width, bool) and width > 0 for width in value
    )


NUMBER = (int, float)
SCHEMA: dict[str, Key] = {
    "rules": Key(str, lambda v: bool(v), "a preset name or a rules YAML file"),
    "players": Key(int, lambda v: 2 <= v <= 6, "an integer 2..6"),
    "seed": Key(int, _non_negative, "an integer >= 0"),
    "device": Key(str, lambda v: v in ("cpu", "cuda", "auto"), "cpu, cuda or auto"),
    "threads": Key(int, _non_negative, "an integer >= 0 (0: torch's default)"),
    "total_steps": Key(int, _positive, "an integer > 0"),
    "minutes": Key(NUMBER, _non_negative, "a number >= 0 (0: no limit)"),
    "num_envs": Key(int, _positive, "an integer > 0"),
    "rollout_steps": Key(int, _positive, "an integer > 0"),
    "epochs": Key(int, _positive, "an integer > 0"),
    "minibatch_size": Key(int, _positive, "an integer > 0"),
    "learning_rate": Key(NUMBER, _positive, "a number > 0"),
    "anneal_lr": Key(bool, allowed="true or false"),
    "gamma": Key(NUMBER, _fraction, "a number in [0, 1]"),
    "gae_lambda": Key(NUMBER, _fraction, "a number in [0, 1]"),
    "clip_coef": Key(NUMBER, _positive, "a number > 0"),
    "ent_coef": Key(NUMBER, _non_negative, "a number >= 0"),
    "vf_coef": Key(NUMBER, _non_negative, "a number >= 0"),
    "max_grad_norm": Key(NUMBER, _positive, "a number > 0"),
    "target_kl": Key(NUMBER, _non_negative, "a number >= 0 (0: no early stop)"),
    "reward": Key(str, lambda v: v in ("match", "round"), "match or round"),
    "hidden": Key(list, _widths, "a list of positive integers, e.g. [256, 256]"),
    "self_play_games": Key(int, _non_negative, "an integer >= 0 (0: none)"),
    "league.current": Key(NUMBER, _non_negative, "a weight >= 0"),
    "league.snapshots": Key(NUMBER, _non_negative, "a weight >= 0"),
    **{f"league.{bot}": Key(NUMBER, _non_negative, "a weight >= 0") for bot in BOTS},
    "league.snapshot_every": Key(int, _positive, "an integer > 0 (updates)"),
    "league.max_snapshots": Key(int, _positive, "an integer > 0"),
    "warm_start": Key(str, lambda v: v in ("none", *BOTS), "none, expert, greedy or random"),
    "warm_start_decisions": Key(int, _positive, "an integer > 0"),
    "warm_start_epochs": Key(int, _non_negative, "an integer >= 0"),
    "eval_every_minutes": Key(NUMBER, _non_negative, "a number >= 0 (0: no evaluation)"),
    "eval_matches": Key(int, lambda v: v >= 2, "an integer >= 2"),
    "eval_opponent": Key(str, lambda v: bool(v), "an agent name (expert, greedy, ...)"),
    "checkpoint_every_minutes": Key(NUMBER, _positive, "a number > 0"),
    "out": Key(str, lambda v: bool(v), "a directory path"),
}


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"league": {"expert": 1}}`` -> ``{"league.expert": 1}``."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`flatten`."""
    data: dict[str, Any] = {}
    for name, value in flat.items():
        *parents, leaf = name.split(".")
        node = data
        for parent in parents:
            node = node.setdefault(parent, {})
        node[leaf] = value
    return data


def _check(name: str, value: Any, source: str) -> Any:
    if name not in SCHEMA:
        raise ConfigError(f"{source}: unknown key {name!r}; allowed: {', '.join(sorted(SCHEMA))}")
    key = SCHEMA[name]
    kinds = key.kind if isinstance(key.kind, tuple) else (key.kind,)
    # YAML reads 1e-4 as a string and bool is an int: neither is silently accepted.
    ok = False if isinstance(value, bool) and bool not in kinds else isinstance(value, kinds)
    if ok:
        try:
            ok = bool(key.check(value))
        except TypeError:
            ok = False
    if not ok:
        raise ConfigError(f"{source}: {name}={value!r} is not allowed; allowed: {key.allowed}")
    if float in kinds and not isinstance(value, bool):
        value = float(value) if isinstance(value, float) else value
    return value


def _parse_value(text: str) -> Any:
    """A command-line value read as YAML (numbers, booleans, lists), e.g. ``[128, 128]``."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    # YAML 1.1 reads "1e-4" as a string; a float is what a user means there.
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def flag_values(args: Any, flags: Mapping[str, tuple[str, type, str]]) -> dict[str, Any]:
    """The config values given as command-line ``flags`` (flag -> (key, type, help)), typed;
    a value of the wrong type raises :class:`ConfigError`."""
    values = {}
    for flag, (key, kind, _) in flags.items():
        text = getattr(args, flag[2:].replace("-", "_"))
        if text is None:
            continue
        try:
            values[key] = kind(text)
        except ValueError:
            raise ConfigError(
                f"{flag}={text!r} is not allowed; allowed: a {kind.__name__}"
            ) from None
    return values


def load_config(
    path: str | Path | None = None,
    flags: Mapping[str, Any] | None = None,
    overrides: list[str] | None = None,
) -> dict[str, Any]:
    """The checked config: the file (default ``configs/train/ppo.yaml``), then ``flags``
    (already typed, ``None`` means not given), then ``key=value`` overrides. Returns a
    nested dict."""
    path = Path(path) if path is not None else DEFAULT_CONFIG
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise ConfigError(f"config file {str(path)!r} is not valid YAML: {error}") from None
    if not isinstance(data, Mapping):
        raise ConfigError(f"config file {str(path)!r} must hold a mapping of keys")
    flat = {}
    for name, value in flatten(data).items():
        if isinstance(value, str):
            value = _parse_value(value) if _looks_numeric(value) else value
        flat[name] = _check(name, value, f"config {path.name}")
    for name, value in (flags or {}).items():
        if value is not None:
            flat[name] = _check(name, value, f"--{name.replace('_', '-')}")
    for item in overrides or []:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise ConfigError(f"override {item!r} is not key=value (e.g. learning_rate=1e-4)")
        flat[name] = _check(name, _parse_value(text), f"override {item!r}")
    missing = sorted(set(SCHEMA) - set(flat))
    if missing:
        raise ConfigError(f"config {path.name}: missing keys {', '.join(missing)}")
    weights = [flat["league.current"], flat["league.snapshots"]]
    weights += [flat[f"league.{bot}"] for bot in BOTS]
    if sum(weights) <= 0:
        raise ConfigError("league: every weight is 0; at least one must be > 0")
    return nest(copy.deepcopy(flat))


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
