"""The training config: one typed, frozen :class:`TrainConfig`, the one place that says
each key's type, range and meaning.

The values come from ``configs/train/ppo.yaml`` (or ``--config FILE``), then from a resumed
checkpoint's saved config where there is one, then from the command line (``--flag VALUE``
or ``key=value``, nested keys with dots: ``league.expert=0.5``). Every value is checked
against its field as it is read: an unknown key, a value of the wrong type or out of range
raises :class:`ConfigError` naming the key, the value and what is allowed. The trainers'
``--help`` and the key table of ``docs/training.md`` are written from the fields below
(``python -m train.config --check`` compares the table; ``--write`` rewrites it).

Nothing here imports torch: a bad command line fails before the trainer loads it.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sto_odno_env.bots.catalog import POLICY_DIR  # the shipped policies
from sto_odno_env.envs.table_config import REWARDS

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = REPO / "configs" / "train" / "ppo.yaml"
TRAINING_DOC = REPO / "docs" / "training.md"
BOTS = ("expert", "greedy", "random")
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
        lambda v: v in ("none", *BOTS) or _policy_name(v),
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


# --- reading and checking ------------------------------------------------------------------


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


def check(name: str, value: Any, source: str) -> Any:
    """``value`` for key ``name``, checked against its field (ints are accepted where a
    number is, and become floats); :class:`ConfigError` names the source, key and value."""
    item = FIELDS.get(name)
    if item is None:
        raise ConfigError(f"{source}: unknown key {name!r}; allowed: {', '.join(FIELDS)}")
    kinds: tuple[type, ...] = (int, float) if item.kind is float else (item.kind,)
    if item.kind is tuple:
        kinds = (list, tuple)
    # bool is an int, and YAML reads 1e-4 as a string: neither is silently accepted.
    ok = not (isinstance(value, bool) and bool not in kinds) and isinstance(value, kinds)
    if ok:
        try:
            ok = bool(item.check(value))
        except TypeError:
            ok = False
    if not ok:
        raise ConfigError(f"{source}: {name}={value!r} is not allowed; allowed: {item.allowed}")
    if item.kind is float:
        return float(value)
    if item.kind is tuple:
        return tuple(value)
    return value


def parse_value(text: str) -> Any:
    """A command-line value read as YAML (numbers, booleans, lists: ``[128, 128]``)."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    if isinstance(value, str):  # YAML 1.1 reads "1e-4" as a string; a number is meant
        try:
            return float(value)
        except ValueError:
            return value
    return value


def read_file(path: str | Path | None = None) -> dict[str, Any]:
    """The checked keys of a config file (default ``configs/train/ppo.yaml``), flat."""
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
        if isinstance(value, str) and _looks_numeric(value):
            value = parse_value(value)
        flat[name] = check(name, value, f"config {path.name}")
    return flat


def overrides(items: list[str]) -> dict[str, Any]:
    """``key=value`` items, checked."""
    values = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise ConfigError(f"override {item!r} is not key=value (e.g. learning_rate=1e-4)")
        values[name] = check(name, parse_value(text), f"override {item!r}")
    return values


def build(flat: Mapping[str, Any], source: str = "config") -> TrainConfig:
    """The :class:`TrainConfig` of checked flat values; every key must be there."""
    missing = [name for name in FIELDS if name not in flat]
    if missing:
        raise ConfigError(f"{source}: missing keys {', '.join(missing)}")
    league = {name[7:]: flat[name] for name in FIELDS if name.startswith("league.")}
    weights = [league[name] for name in ("current", "snapshots", *BOTS)]
    if sum(weights) <= 0:
        raise ConfigError("league: every weight is 0; at least one must be > 0")
    if flat["reward"] == "first" and flat["self_play_games"]:
        # The self-play games reset in the engine, where the step that decides a seat's
        # place is not told apart from the others.
        raise ConfigError(
            "reward=first is not allowed with self_play_games > 0; allowed: match or round"
        )
    top = {name: flat[name] for name in FIELDS if "." not in name}
    return TrainConfig(**top, league=LeagueConfig(**league))


def load_config(
    path: str | Path | None = None,
    flags: Mapping[str, Any] | None = None,
    items: list[str] | None = None,
    base: Mapping[str, Any] | None = None,
) -> TrainConfig:
    """The checked config: ``base`` (flat, e.g. a checkpoint's; else the file), then the
    file's keys when a ``path`` is given with a base, then ``flags`` (flat name -> value,
    ``None`` for not given), then ``key=value`` ``items``."""
    if base is None:
        flat = read_file(path)
    else:
        flat = dict(base)
        if path is not None:
            flat.update(read_file(path))
    for name, value in (flags or {}).items():
        if value is not None:
            flat[name] = check(name, value, FIELDS[name].flag)
    flat.update(overrides(items or []))
    return build(flat, f"config {Path(path).name if path else DEFAULT_CONFIG.name}")


def from_saved(saved: Mapping[str, Any], source: str) -> dict[str, Any]:
    """The flat, checked keys of a config saved by a run (``TrainConfig.to_dict``); keys
    added since the run was written come from ``configs/train/ppo.yaml``."""
    flat = read_file()
    for name, value in flatten(saved).items():
        if name in FIELDS:  # a key since removed is dropped
            flat[name] = check(name, value, source)
    return flat


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# --- the command line ------------------------------------------------------------------------


def add_flags(parser: argparse.ArgumentParser, defaults: Mapping[str, Any]) -> None:
    """A flag for every key, in its section, with its meaning, what it allows and its
    default (``defaults``: the config file's values). The flags' own default is ``None``
    (not given), so a resumed run can tell a given value from the file's."""
    groups = {name: parser.add_argument_group(f"{name} (config keys)") for name in SECTIONS}
    for item in FIELDS.values():
        shown = _shown(defaults.get(item.name))
        groups[item.section].add_argument(
            item.flag,
            dest=_dest(item.name),
            metavar=item.kind.__name__.upper() if item.kind is not tuple else "LIST",
            default=None,
            help=f"{item.meaning}; {item.allowed} (default: {shown})",
        )


def flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """The keys given as ``--flag VALUE``, read as YAML and checked."""
    values = {}
    for item in FIELDS.values():
        text = getattr(args, _dest(item.name), None)
        if text is not None:
            values[item.name] = check(item.name, parse_value(text), item.flag)
    return values


def _dest(name: str) -> str:
    return "config_" + name.replace(".", "__")


def _shown(value: Any) -> str:
    """A value as the config file writes it (``false``, ``[128, 128]``, ``50_000_000``)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int) and value >= 100_000:
        return f"{value:_}"
    return str(value).replace("%", "%%")


# --- the table in docs/training.md -----------------------------------------------------------

BLOCK = re.compile(
    r"(<!-- begin generated: config -->\n)(?P<body>.*?)(<!-- end generated: config -->)",
    re.DOTALL,
)


def markdown_table() -> str:
    """Every key: its section, default (configs/train/ppo.yaml), what it allows, meaning."""
    defaults = read_file()
    lines = ["| key | default | allowed | meaning |", "|---|---|---|---|"]
    for section in SECTIONS:
        lines.append(f"| **{section}** | | | |")
        for item in FIELDS.values():
            if item.section == section:
                shown = _shown(defaults[item.name]).replace("%%", "%")
                lines.append(f"| `{item.name}` | `{shown}` | {item.allowed} | {item.meaning} |")
    return "\n".join(lines) + "\n"


def render_doc(text: str) -> str:
    """``docs/training.md`` with its generated config table rewritten."""
    if not BLOCK.search(text):
        raise ConfigError(f"{TRAINING_DOC.name} has no <!-- begin generated: config --> block")
    return BLOCK.sub(lambda m: m.group(1) + markdown_table() + m.group(3), text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m train.config",
        description="The training config's key table (docs/training.md).",
    )
    parser.add_argument("--write", action="store_true", help="rewrite docs/training.md")
    parser.add_argument("--check", action="store_true", help="exit 1 if the table differs")
    args = parser.parse_args(argv)
    if not (args.write or args.check):
        print(markdown_table(), end="")
        return 0
    text = TRAINING_DOC.read_text(encoding="utf-8")
    rendered = render_doc(text)
    if args.check:
        if rendered != text:
            print("docs/training.md's config table differs: python -m train.config --write")
            return 1
        return 0
    TRAINING_DOC.write_text(rendered, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
