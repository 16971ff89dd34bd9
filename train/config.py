"""The training config read and checked: the typed, frozen :class:`TrainConfig` and its
keys are ``train/config_keys.py``'s (each key's type, range and meaning, in one place);
this module reads values into it.

The values come from ``configs/train/ppo.yaml`` (or ``--config FILE``), then from a resumed
checkpoint's saved config where there is one, then from the command line (``--flag VALUE``
or ``key=value``, nested keys with dots: ``league.expert=0.5``). Every value is checked
against its field as it is read: an unknown key, a value of the wrong type or out of range
raises :class:`ConfigError` naming the key, the value and what is allowed. The trainers'
``--help`` and the key table of ``docs/training.md`` are written from those fields
(``python -m train.config --check`` compares the table; ``--write`` rewrites it).

Nothing here imports torch: a bad command line fails before the trainer loads it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from sto_odno_env.tools import docblocks
from train.config_keys import (
    DEFAULT_CONFIG,
    FIELDS,
    LEAGUE_BOTS,
    SECTIONS,
    TRAINING_DOC,
    ConfigError,
    LeagueConfig,
    TrainConfig,
    flatten,
)

# --- reading and checking ------------------------------------------------------------------


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
    weights = [league[name] for name in ("current", "snapshots", *LEAGUE_BOTS)]
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
    return docblocks.replace_block(text, "config", markdown_table(), "docs/training.md")


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
