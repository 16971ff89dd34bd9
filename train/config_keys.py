"""The typed training config: :class:`TrainConfig` (with :class:`LeagueConfig`), the one
place that says each key's type, range, meaning, ``--help`` section and whether a resumed
run must keep it (:func:`key`); :data:`FIELDS` lists them flat (``league.expert``).

``train/config.py`` reads and checks values against these fields (the config file, a
checkpoint's saved config, the command line) and writes docs/training.md's key table.
Nothing here imports torch.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sto_odno_env.bots.catalog import POLICY_DIR  # the shipped policies
from sto_odno_env.envs.table_config import REWARDS

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = REPO / "configs" / "train" / "ppo.yaml"
TRAINING_DOC = REPO / "docs" / "training.md"
LEAGUE_BOTS = ("expert", "greedy", "random")  # the bots a league seats and a warm start imitates
SECTIONS = (
    "run",
    "budget",
    "rollout and update",
    "warm start",
    "self-play games",
    "league",
    "evaluation and output",
)


class ConfigError(ValueError):
    """A training config key or value that is not allowed."""


def key(
    meaning: str,
    allowed: str,
    check: Callable[[Any], bool] = lambda value: True,
    *,
    section: str,
    fixed: bool = False,
) -> Any:
    """A config field: what it means, what it allows (``check`` and its words), the
    ``--help`` section it is listed in, and whether a resumed run must keep it
    (``fixed``: the shapes of the saved state depend on it)."""
    assert section in SECTIONS, section
    return field(
        metadata={
            "meaning": meaning,
            "allowed": allowed,
            "check": check,
            "section": section,
            "fixed": fixed,
        }
    )


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


def _policy_name(value: Any) -> bool:
    return isinstance(value, str) and (
        value.endswith(".pt") or (POLICY_DIR / f"{value}.pt").is_file()
    )


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 2 <= value <= 6


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _weight(meaning: str) -> Any:
    return key(meaning, "a weight >= 0", _non_negative, section="league")


@dataclass(frozen=True)
class LeagueConfig:
    """Who sits in the opponent seats of each training game (``train/league.py``): a member
    is drawn per game and seat at every match start, with these weights."""

    current: float = _weight("the policy being trained")
    snapshots: float = _weight(
        "frozen copies of the policy, the weight shared evenly among those held (until the "
        "first snapshot it goes to current)"
    )
    expert: float = _weight("the expert bot (agents/)")
    greedy: float = _weight("the greedy bot")
    random: float = _weight("the random bot")
    snapshot_every: int = key(
        "updates between snapshots", "an integer > 0", _positive, section="league"
    )
    max_snapshots: int = key(
        "snapshots held; the oldest is replaced beyond this",
        "an integer > 0",
        _positive,
        section="league",
        fixed=True,
    )


@dataclass(frozen=True)
class TrainConfig:
    """A training run's settings (see the module docstring for where they come from)."""

    rules: str = key(
        "the rule set (docs/rules.md)",
        "a preset name or a rules YAML file",
        bool,
        section="run",
        fixed=True,
    )
    players: int = key(
        "players at each table (with players_mix: the count of the self-play games)",
        "an integer 2..6",
        lambda v: 2 <= v <= 6,
        section="run",
        fixed=True,
    )
    players_mix: tuple[int, ...] = key(
        "train one policy at several player counts at once: the num_envs league games are "
        "split among these counts by players_weights, and evaluations play each "
        "(train/ppo.py only)",
        "[] (players only) or a list of distinct integers 2..6, e.g. [2, 3, 4, 6]",
        lambda v: len(set(v)) == len(v) and all(_count(c) for c in v),
        section="run",
        fixed=True,
    )
    players_weights: tuple[float, ...] = key(
        "the share of the league games at each count of players_mix",
        "[] (equal) or one number >= 0 per count of players_mix",
        lambda v: all(_number(w) and w >= 0 for w in v),
        section="run",
        fixed=True,
    )
    seed: int = key(
        "seed of the games, the league, the networks and the evaluation deals",
        "an integer >= 0",
        _non_negative,
        section="run",
    )
    device: str = key(
        "where the networks run (auto: cuda when torch sees one)",
        "cpu, cuda or auto",
        lambda v: v in ("cpu", "cuda", "auto"),
        section="run",
    )
    threads: int = key(
        "torch CPU threads (1: the engine and torch share the cores best)",
        "an integer >= 0 (0: torch's default)",
        _non_negative,
        section="run",
    )
    overlap: bool = key(
        "train/ppo.py: collect the next rollout in a second process (on the other core, "
        "acting with the policy one update behind) while this one trains; false: one "
        "process, collection then update",
        "true or false",
        section="run",
    )
    minutes: float = key(
        "wall-clock budget of the whole command: set-up, warm start, updates, evaluations "
        "and the final save (a resumed run gets this much again)",
        "a number >= 0 (0: no limit)",
        _non_negative,
        section="budget",
    )
    total_steps: int = key(
        "stop once the run has trained on this many learner decisions (over all sessions)",
        "an integer > 0",
        _positive,
        section="budget",
    )
    num_envs: int = key(
        "games stepped at once (train/rllib_ppo.py: per env runner)",
        "an integer > 0",
        _positive,
        section="rollout and update",
        fixed=True,
    )
    rollout_steps: int = key(
        "learner decisions per game per update",
        "an integer > 0",
        _positive,
        section="rollout and update",
    )
    epochs: int = key(
        "passes over an update's decisions", "an integer > 0", _positive,
        section="rollout and update",
    )  # fmt: skip
    minibatch_size: int = key(
        "decisions per gradient step (also the warm start's)",
        "an integer > 0",
        _positive,
        section="rollout and update",
    )
    learning_rate: float = key(
        "Adam's step size (also the warm start's)", "a number > 0", _positive,
        section="rollout and update",
    )  # fmt: skip
    anneal_lr: bool = key(
        "decay the learning rate linearly to 0 at total_steps",
        "true or false",
        section="rollout and update",
    )
    gamma: float = key(
        "discount per learner decision", "a number in [0, 1]", _fraction,
        section="rollout and update",
    )  # fmt: skip
    gae_lambda: float = key(
        "GAE's lambda", "a number in [0, 1]", _fraction, section="rollout and update"
    )
    clip_coef: float = key(
        "PPO's clip of the probability ratio", "a number > 0", _positive,
        section="rollout and update",
    )  # fmt: skip
    ent_coef: float = key(
        "weight of the masked entropy bonus", "a number >= 0", _non_negative,
        section="rollout and update",
    )  # fmt: skip
    vf_coef: float = key(
        "weight of the value loss", "a number >= 0", _non_negative,
        section="rollout and update",
    )  # fmt: skip
    max_grad_norm: float = key(
        "gradient clipping (global norm)", "a number > 0", _positive,
        section="rollout and update",
    )  # fmt: skip
    target_kl: float = key(
        "stop an update's epochs early once the mean approx_kl is above this",
        "a number >= 0 (0: never)",
        _non_negative,
        section="rollout and update",
    )
    reward: str = key(
        "match: +1 to -1 linear in the final place (ties shared); round: also -points/target "
        "at every round end; first: +1 for first place alone, -1/(P-1) for any other",
        "match, round or first",
        lambda v: v in REWARDS,
        section="rollout and update",
    )
    hidden: tuple[int, ...] = key(
        "widths of the policy and value MLPs (tanh)",
        "a list of positive integers, e.g. [256, 256]",
        _widths,
        section="rollout and update",
        fixed=True,
    )
    warm_start: str = key(
        "before PPO the policy imitates this bot over its decisions in every seat, and the "
        "value network learns their returns (train/imitation.py)",
        "none, expert, greedy, random, a shipped policy (ppo-classic, ...) or a policy "
        "file: a policy's weights become the actor's (its widths must be hidden, or narrower at "
        "the same depth: widened keeping its play; trained "
        "for any rule set of the same sizes), and only the critic learns",
        lambda v: v in ("none", *LEAGUE_BOTS) or _policy_name(v),
        section="warm start",
    )
    warm_start_decisions: int = key(
        "bot decisions the warm start imitates", "an integer > 0", _positive,
        section="warm start",
    )  # fmt: skip
    warm_start_epochs: int = key(
        "passes of the warm start over those decisions", "an integer >= 0", _non_negative,
        section="warm start",
    )  # fmt: skip
    self_play_games: int = key(
        "games beside the num_envs league games in which the current policy plays every "
        "seat and every seat's decisions train (train/selfplay.py; train/ppo.py only)",
        "an integer >= 0 (0: none)",
        _non_negative,
        section="self-play games",
        fixed=True,
    )
    league: LeagueConfig = field(metadata={"section": "league"})
    eval_every_minutes: float = key(
        "minutes between duplicate-deal evaluations against eval_opponent (also one at the "
        "start and one at the end)",
        "a number >= 0 (0: no evaluation)",
        _non_negative,
        section="evaluation and output",
    )
    eval_matches: int = key(
        "matches per evaluation (the same deals each time)",
        "an integer >= 2",
        lambda v: v >= 2,
        section="evaluation and output",
    )
    eval_opponent: str = key(
        "the agent evaluated against", "an agent name (expert, greedy, ...)", bool,
        section="evaluation and output",
    )  # fmt: skip
    checkpoint_every_minutes: float = key(
        "minutes between checkpoints (also at the end and on Ctrl-C)",
        "a number > 0",
        _positive,
        section="evaluation and output",
    )
    out: str = key(
        "directory for checkpoints, logs and results (a resumed run: its checkpoint's)",
        "a directory path",
        bool,
        section="evaluation and output",
    )

    def to_dict(self) -> dict[str, Any]:
        """The config as nested plain data (lists, not tuples), as a checkpoint saves it."""
        flat = self.flat()
        return nest({k: list(v) if isinstance(v, tuple) else v for k, v in flat.items()})

    def flat(self) -> dict[str, Any]:
        """``{"league.expert": 0.3, ...}``: every key with its value."""
        values = {}
        for name in FIELDS:
            value: Any = self
            for part in name.split("."):
                value = getattr(value, part)
            values[name] = value
        return values


@dataclass(frozen=True)
class Field:
    """One config key as the checks, the flags and the docs see it."""

    name: str  # flat: "league.expert"
    kind: type
    meaning: str
    allowed: str
    check: Callable[[Any], bool]
    section: str
    fixed: bool

    @property
    def flag(self) -> str:
        """``--total-steps``, ``--league.expert``."""
        return "--" + self.name.replace("_", "-")


def _fields(cls: type, prefix: str = "") -> Iterator[Field]:
    hints = typing.get_type_hints(cls)
    for item in dataclasses.fields(cls):
        kind = hints[item.name]
        if dataclasses.is_dataclass(kind):
            yield from _fields(kind, f"{prefix}{item.name}.")
            continue
        meta = item.metadata
        yield Field(
            f"{prefix}{item.name}",
            tuple if typing.get_origin(kind) is tuple else kind,
            meta["meaning"],
            meta["allowed"],
            meta["check"],
            meta["section"],
            meta["fixed"],
        )


FIELDS: dict[str, Field] = {item.name: item for item in _fields(TrainConfig)}


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"league": {"expert": 1}}`` -> ``{"league.expert": 1}``."""
    flat: dict[str, Any] = {}
    for name, value in data.items():
        full = f"{prefix}{name}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, full + "."))
        else:
            flat[full] = value
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
