"""A trainer's command line, checked before torch loads (``train/__init__.py`` defers it):
every config key as a flag with its meaning and the config file's default
(:mod:`train.config`), ``key=value`` overrides, ``--config``, ``--resume``,
``--overwrite``, ``--no-progress`` and the trainer's own flags (:class:`Flag`).

``--resume`` takes the run's settings from its checkpoint, then what the command line gives;
keys the saved state's shapes depend on must match. A run never replaces another: an
``--out`` folder that holds a run's files is refused (one line naming ``--resume``, another
``--out`` and ``--overwrite``) unless the command resumes that run or says ``--overwrite``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sto_odno_env.tools.errors import StoOdnoError
from train import config as settings_module
from train.config_keys import FIELDS, ConfigError, TrainConfig
from train.run.evaluations import eval_counts
from train.run.outputs import run_files
from train.run.protocol import Saved, Settings, Spec

if TYPE_CHECKING:
    from sto_odno_env.game.rules import Rules


def user_errors() -> tuple[type[Exception], ...]:
    """The errors that are the command line's or the config's (exit 2, no traceback): the
    kit's own, every one a :class:`~sto_odno_env.tools.errors.StoOdnoError`. A bare
    ``ValueError`` is not among them: it is a bug, and ends with its traceback."""
    return (StoOdnoError,)


def run_errors() -> tuple[type[Exception], ...]:
    """The errors a run can meet that are still the command line's: a budget too short,
    a checkpoint that does not fit."""
    from sto_odno_env.bots.checkpoint import CheckpointError
    from sto_odno_env.bots.registry import AgentError

    return (ConfigError, AgentError, CheckpointError)


def parse(spec: Spec, argv: list[str] | None) -> Settings:
    """The checked command line (see the module docstring); :class:`ConfigError` and the
    other :func:`user_errors` name what is wrong."""
    argv = list(sys.argv[1:] if argv is None else argv)
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--config", default=None)
    known, _ = early.parse_known_args(argv)
    try:
        defaults = settings_module.read_file(known.config)
    except ConfigError:
        if "-h" in argv or "--help" in argv:  # still explain the flags
            defaults = settings_module.read_file()
        else:
            raise
    args = parser(spec, defaults).parse_intermixed_args(argv)
    for flag in spec.flags:
        value = getattr(args, flag.dest)
        if value is not None and not flag.check(value):
            raise ConfigError(f"{flag.name} {value} is not allowed; allowed: {flag.allowed}")
    flags = settings_module.flag_values(args)
    given = {**flags, **settings_module.overrides(args.overrides)}
    saved = None
    base = None
    if args.resume:
        saved = spec.read_checkpoint(Path(args.resume))
        base = settings_module.from_saved(saved.config, f"checkpoint {args.resume!r}")
        if "out" not in given:
            base["out"] = str(saved.path.parent)
    config = settings_module.load_config(args.config, flags, args.overrides, base)
    for name, value in spec.unsupported.items():
        if config.flat()[name] != value:
            raise ConfigError(
                f"{name}={as_text(config.flat()[name])} is not implemented by {spec.prog}; "
                f"allowed here: {as_text(value)}"
            )
    trainer_flags = {}
    for flag in spec.flags:
        value = getattr(args, flag.dest)
        if value is None and saved is not None and flag.saved and flag.dest in saved.flags:
            value = saved.flags[flag.dest]
        trainer_flags[flag.dest] = flag.default if value is None else value
    return settings(
        spec, config, progress=not args.no_progress and sys.stderr.isatty(),
        overwrite=args.overwrite, saved=saved, given=frozenset(given), flags=trainer_flags,
        args=args,
    )  # fmt: skip


def settings(
    spec: Spec,
    config: TrainConfig,
    *,
    progress: bool,
    overwrite: bool = False,
    saved: Saved | None = None,
    given: frozenset[str] = frozenset(),
    flags: dict[str, object] | None = None,
    args: argparse.Namespace | None = None,
) -> Settings:
    """The :class:`Settings` of a checked ``config`` (a command line's, or one a library
    caller built, e.g. the best-response trainer): its rules, the split of ``num_envs``,
    the evaluation opponent and ``--out`` are checked now, before torch loads."""
    rules = check_rules(config)
    from train.ppo_parts.tables import counts_and_sizes

    counts_and_sizes(config)  # a split of num_envs that fails does so now, before torch
    if saved is not None:
        check_resumable(saved, config, given, rules)
    from sto_odno_env.bots.registry import load as load_agent

    for players in eval_counts(config):
        load_agent(config.eval_opponent, rules, players)  # a bad name fails now
    out = Path(config.out)
    check_out(spec, out, saved, overwrite)
    if saved is not None and resumes_in(saved, out):
        overwrite = False  # the run there is this one: nothing of it is removed
    return Settings(config, rules, out, flags or {}, args, saved, given, progress, overwrite)


def parser(spec: Spec, defaults: dict[str, object]) -> argparse.ArgumentParser:
    """The trainer's argument parser (``--help`` shows the config file's defaults)."""
    trainer_flags = "".join(f" [{flag.name} {flag.kind.__name__.upper()}]" for flag in spec.flags)
    result = argparse.ArgumentParser(
        prog=spec.prog,
        usage=f"%(prog)s [--config FILE] [--resume CHECKPOINT] [--overwrite] [--no-progress]"
        f"{trainer_flags} [--KEY VALUE ...] [key=value ...]",
        description=spec.description,
        epilog="Every config key can also be given as key=value (league.expert=0.5). "
        "A finished run exits 0, one stopped by Ctrl-C or SIGTERM 130 (it saves the last "
        "finished update), a bad command line 2. docs/training.md has the details.",
    )
    result.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="training config YAML (default: configs/train/ppo.yaml); its values are the "
        "defaults shown below",
    )
    result.add_argument(
        "--resume",
        default=None,
        metavar="CHECKPOINT",
        help=f"continue a run ({spec.checkpoint}) with its settings, then those given here",
    )
    result.add_argument(
        "--overwrite",
        action="store_true",
        help="start over in an --out folder that holds another run, replacing its files "
        "(without it such a folder is refused)",
    )
    result.add_argument(
        "--no-progress",
        action="store_true",
        help="progress as lines, not bars (the default when the output is not a terminal)",
    )
    for flag in spec.flags:
        result.add_argument(
            flag.name,
            type=flag.kind,
            default=None,
            help=f"{flag.help} (default: {as_text(flag.default)}"
            + (", or the resumed run's)" if flag.saved else ")"),
        )
    if spec.add_arguments is not None:
        spec.add_arguments(result)
    settings_module.add_flags(result, defaults)
    result.add_argument(
        "overrides",
        nargs="*",
        metavar="key=value",
        help="any config key, e.g. learning_rate=1e-4 league.expert=0.5",
    )
    return result


def check_out(spec: Spec, out: Path, saved: Saved | None, overwrite: bool) -> None:
    """``out`` must be a folder (or not exist yet) that holds no other run: the resumed
    run's own folder, or any with ``overwrite``."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"out={str(out)!r} is a file; allowed: a directory path")
    held = run_files(out)
    if not held or overwrite:
        return
    if saved is not None and resumes_in(saved, out):
        return  # continuing the run that is there
    resume = ""
    checkpoint = out / Path(spec.checkpoint).name
    if spec.resumable and checkpoint.exists():  # a run stopped before its first save has none
        resume = f"continue it with --resume {checkpoint}, "
    raise ConfigError(
        f"out={str(out)!r} holds another run ({', '.join(held)}); {resume}give another "
        "--out, or add --overwrite to start over there (its files are replaced)"
    )


def resumes_in(saved: Saved, out: Path) -> bool:
    """The resumed checkpoint is the run in ``out``."""
    return saved.path.resolve().parent == out.resolve()


def as_text(value: object) -> str:
    """A value as an error line shows it (``none``, ``false``, ``[128, 128]``)."""
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


def check_rules(config: TrainConfig) -> Rules:
    """The config's rule set, checked against ``players`` and ``players_mix``."""
    from sto_odno_env.game.rules import load_rules

    rules = load_rules(config.rules)
    rules.check_players(config.players)
    low, high = rules.players
    refused = [players for players in config.players_mix if not low <= players <= high]
    if refused:
        raise ConfigError(
            f"players_mix={list(config.players_mix)}: rules {rules.name!r} do not allow "
            f"{refused} players; allowed: counts in {low}..{high}"
        )
    return rules


def check_resumable(saved: Saved, config: TrainConfig, given: frozenset[str], rules: Rules) -> None:
    """Keys the saved state's shapes depend on must be the checkpoint's."""
    from sto_odno_env.bots.checkpoint import CheckpointError, check_fits

    source = f"checkpoint {str(saved.path)!r}"
    check_fits({"rules": saved.config.get("rules")}, saved.path, rules, None)
    old = settings_module.from_saved(saved.config, source)
    new = config.flat()
    for item in FIELDS.values():
        name = item.name
        if item.fixed and name != "rules" and old[name] != new[name]:
            where = "given here" if name in given else "from --config"
            raise CheckpointError(
                f"{source} was trained with {name}={as_text(old[name])}; this run has "
                f"{name}={as_text(new[name])} ({where}); they must match to resume (the "
                "saved state has their shapes)"
            )
