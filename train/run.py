"""The run harness of the trainers: everything about a training run except the algorithm.

``train/ppo.py``, ``train/rllib_ppo.py`` and ``train/sb3_ppo.py`` each give a
:class:`Spec` (their name, their own flags, how to read their checkpoint and how to build
their :class:`Trainer`) and keep only the algorithm. This module does the rest, the same
way for all three:

* **The command line.** Every config key as a flag with its meaning and the config file's
  default (:mod:`train.config`), ``key=value`` overrides, ``--config``, ``--resume``,
  ``--no-progress`` and the trainer's flags. The command line and the config are checked
  before torch loads (``train/__init__.py`` defers torch to its first use), so a mistake is an
  error within a second. ``--resume`` takes the run's settings from its checkpoint, then
  what the command line gives; keys the saved state's shapes depend on must match.
* **The budget.** ``minutes`` bounds the whole command: set-up, warm start, updates,
  evaluations and the final save. The warm start's time is measured on a small sample
  before it starts, and a budget too short for it is refused then; the update loop stops
  early enough for the final evaluation and save. ``total_steps`` stops the run after that
  many learner decisions over all its sessions. The first lines say the budget, its end
  and where the output goes; the speed and what the budget will give follow the first
  update.
* **Phases and progress.** Set-up, warm start (decisions collected, fitting epochs),
  evaluations (matches) and updates each show their own progress: bars on a terminal,
  lines otherwise (``--no-progress``, or output to a file).
* **Counters** (:class:`Counters`): one set, changed only when an update or an evaluation
  has finished, saved with the checkpoint and reported by the summary.
* **Evaluation** every ``eval_every_minutes`` (and at the start and the end): duplicate
  deals against ``eval_opponent``, the same deals every time (``train/evaluation.py``);
  the best evaluated policy is ``best.pt``, every evaluation a row of ``evaluations.csv``.
* **Checkpoints** every ``checkpoint_every_minutes``, at the end and on a stop: the
  trainer's checkpoint and its policy file, written together from the same finished
  update, each to a temporary file renamed into place.
* **Signals.** Ctrl-C (SIGINT) and SIGTERM at any moment end the run cleanly: the last
  finished update is saved (or the output says that nothing exists yet), the summary says
  what was saved, and the command exits 130. A save in progress is finished first, and
  trainers whose update cannot be cut (RLlib, SB3) finish the update in progress (a second
  signal stops at once without saving it).
* **The summary**: what was saved and at which update, then every figure with what it
  counts; also ``summary.json``.

A finished run exits 0, a stopped one 130, a bad command line or config 2.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from train import config as settings_module
from train.config import BOTS, FIELDS, ConfigError, TrainConfig

EXIT_STOPPED = 130  # the shell's code for Ctrl-C; SIGTERM gets it too (a stop, not a failure)
EVALUATION_SEED_OFFSET = 100_003  # the evaluation deals: another stream than the games'
LOG_EVERY = 30.0  # seconds between progress lines when there is no terminal for bars
FIRST_LINE = 5.0  # ... and before a phase's first one (a phase shorter than this shows none)


# --- counters --------------------------------------------------------------------------------


@dataclass
class Counters:
    """The run's counters over all its sessions. They change only when an update or an
    evaluation has finished, so at any moment they describe the last finished update: the
    one a checkpoint saves and the summary reports."""

    update: int = 0  # updates finished
    global_step: int = 0  # learner decisions trained on
    episodes: int = 0  # learner matches finished in the training games
    elapsed: float = 0.0  # seconds of training (warm start and updates; not evaluations)
    best_rate: float = -1.0  # the best evaluation's rate (best.pt), -1 before any
    warm_started: bool = False  # the warm start is done (or there is none)
    evaluations: list[dict[str, Any]] = field(default_factory=list)  # evaluations.csv rows

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a checkpoint (``torch.load(weights_only=True)`` reads it back)."""
        data = asdict(self)
        data["evaluations"] = json.dumps(self.evaluations)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], evaluations: Any = None) -> Counters:
        """The counters of :meth:`to_dict` (also of checkpoints that kept the evaluations
        beside the counters: ``evaluations``)."""
        rows = data.get("evaluations", evaluations)
        return cls(
            update=int(data["update"]),
            global_step=int(data["global_step"]),
            episodes=int(data["episodes"]),
            elapsed=float(data["elapsed"]),
            best_rate=float(data["best_rate"]),
            warm_started=bool(data.get("warm_started", True)),
            evaluations=json.loads(rows) if isinstance(rows, str) else list(rows or []),
        )


@dataclass
class Update:
    """What one update did: the learner decisions it trained on, the learner matches that
    ended in it, and its statistics (losses, ...) for the logs."""

    decisions: int
    episodes: int
    stats: dict[str, float]


# --- what a trainer gives ------------------------------------------------------------------


class Trainer(Protocol):
    """The algorithm side of a run, built by :attr:`Spec.build`.

    ``interruptible``: an update may be cut short by a signal, because :meth:`capture`
    copies the state at every update's end (``train/ppo.py``). Otherwise signals wait for
    the update in progress to finish, and :meth:`capture` may return the live state.
    """

    interruptible: bool
    policy_name: str  # the policy file in --out: "policy.pt"

    def warm_start(self, console: Console) -> dict[str, float]:
        """Imitate ``config.warm_start`` (train/imitation.py); its statistics."""

    def warm_start_seconds(self) -> float:
        """The warm start's time, measured on a small sample of it."""

    def train(self, counters: Counters) -> Update:
        """One update (collect, then learn); ``counters`` are those before it."""

    def capture(self) -> Any:
        """The state at the end of the last finished update."""

    def policy_agent(self, captured: Any) -> Any:
        """The captured policy as a greedy agent (for the evaluations)."""

    def write_policy(self, captured: Any, path: Path) -> None:
        """The captured policy as a policy file."""

    def write_checkpoint(self, captured: Any, counters: Counters, out: Path) -> Path:
        """The captured state and ``counters``, for ``--resume``; returns its path."""

    def scores(self, captured: Any) -> dict[str, float]:
        """The learner's score against each league member in the training games."""

    def describe(self) -> str:
        """One line: what the trainer runs (games, league)."""

    def extra_summary(self) -> dict[str, Any]:
        """Trainer-specific entries of summary.json."""

    def close(self) -> None:
        """Release what the trainer holds (processes, files)."""


@dataclass(frozen=True)
class Saved:
    """A checkpoint read for ``--resume``: its config (nested), the trainer flags it was run
    with, its counters, and the whole data for the trainer to restore."""

    path: Path
    config: dict[str, Any]
    flags: dict[str, Any]
    counters: Counters
    data: Any


@dataclass(frozen=True)
class Flag:
    """A trainer's own command-line flag (not a config key). ``saved``: a resumed run
    takes it from the checkpoint unless given."""

    name: str  # "--env-runners"
    kind: type
    default: Any
    help: str
    saved: bool = False
    check: Callable[[Any], bool] = lambda value: True
    allowed: str = ""

    @property
    def dest(self) -> str:
        return self.name[2:].replace("-", "_")


@dataclass(frozen=True)
class Spec:
    """What a trainer tells the harness."""

    prog: str  # "python train/ppo.py"
    description: str
    checkpoint: str  # what --resume takes, e.g. "runs/ppo/checkpoint.pt"
    build: Callable[[Settings, Console], Trainer]
    read_checkpoint: Callable[[Path], Saved]
    outputs: str  # what --out receives, for the first lines
    flags: tuple[Flag, ...] = ()
    # keys this trainer does not implement -> the only value allowed
    unsupported: dict[str, Any] = field(default_factory=dict)
    # keys (or sections: "league") this trainer does not use, whatever their value
    ignored: tuple[str, ...] = ()
    # extra parser set-up and a check of the parsed flags (e.g. --export)
    add_arguments: Callable[[argparse.ArgumentParser], None] | None = None


@dataclass(frozen=True)
class Settings:
    """A checked command line: the config, its rules, the trainer flags, the resumed
    checkpoint (if any) and which keys the command line gave."""

    config: TrainConfig
    rules: Any  # sto_odno_env.game.rules.Rules
    out: Path
    flags: dict[str, Any]
    args: argparse.Namespace
    saved: Saved | None
    given: frozenset[str]
    progress: bool


# --- signals -------------------------------------------------------------------------------


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; ``abandon``: a second one, stop without saving the
    update in progress."""

    def __init__(self, signum: int, abandon: bool = False):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.abandon = abandon

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


class Signals:
    """SIGINT and SIGTERM as :class:`Interrupted`, raised where the run can stop and held
    where it cannot (:meth:`hold`: a save, or an update that must not be cut)."""

    NUMBERS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.received: int | None = None
        self.stopping = False  # the run is already stopping: later signals only wait
        self.where: Callable[[], str] = lambda: ""  # what the run is doing (its phase)
        self.during = ""  # what it was doing when the first signal came
        self._holds = 0
        self._soft = False
        self._notice: Callable[[], None] | None = None
        self._previous: dict[int, Any] = {}

    def install(self) -> None:
        """Take SIGINT and SIGTERM (again: ``ray.init`` sets its own SIGTERM handler). A
        shell starts background jobs with SIGINT ignored; Ctrl-C is wanted here too."""
        for number in self.NUMBERS:
            previous = signal.signal(number, self._handle)
            self._previous.setdefault(number, previous)

    def uninstall(self) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, previous)
        self._previous.clear()

    def _handle(self, signum: int, frame: Any) -> None:
        first = self.received is None
        if first:
            self.received = signum
            self.during = self.where()
        if self.stopping or (self._holds and not self._soft):
            return
        if self._holds:  # an update that must not be cut
            if first:
                if self._notice is not None:
                    self._notice()
                return
            raise Interrupted(signum, abandon=True)
        raise Interrupted(signum)

    @contextlib.contextmanager
    def hold(self, notice: Callable[[], None] | None = None, second_stops: bool = False):
        """Signals wait until the block ends, then stop the run (:class:`Interrupted`);
        ``second_stops``: a second signal stops at once (the block's work is lost)."""
        self._holds += 1
        soft, self._soft = self._soft, second_stops
        notice_before, self._notice = self._notice, notice
        try:
            yield
        finally:
            self._holds -= 1
            self._soft, self._notice = soft, notice_before
        if not self._holds and self.received is not None and not self.stopping:
            raise Interrupted(self.received)

    def check(self) -> None:
        """Stop here if a signal arrived while held."""
        if self.received is not None and not self.stopping:
            raise Interrupted(self.received)


# --- output --------------------------------------------------------------------------------


class Bar:
    """Progress of one phase: a tqdm bar on a terminal, else a line every ``LOG_EVERY``
    seconds."""

    def __init__(self, console: Console, label: str, total: int, unit: str):
        self.console = console
        self.label = label
        self.total = total
        self.unit = unit
        self.done = 0
        self.note = ""
        self._bar = None
        self._next_line = time.monotonic() + min(FIRST_LINE, console.log_every)
        if console.interactive:
            from tqdm import tqdm

            tqdm.monitor_interval = 0  # no monitor thread
            self._bar = tqdm(
                total=total,
                desc=label,
                unit=f" {unit}",
                unit_scale=True,
                dynamic_ncols=True,
                mininterval=0.5,
                leave=False,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt}{unit} "
                "[{elapsed}<{remaining}]{postfix}",
            )

    def advance(self, count: int, note: str | None = None) -> None:
        self.done += count
        if note is not None:
            self.note = note
        if self._bar is not None:
            if note is not None:
                self._bar.set_postfix_str(note, refresh=False)
            self._bar.update(count)
        elif time.monotonic() >= self._next_line:
            self._next_line = time.monotonic() + self.console.log_every
            self.console.say(self.line())

    def line(self) -> str:
        text = f"  {self.label}: {self.done:,}/{self.total:,} {self.unit}"
        return text + (f" ({self.note})" if self.note else "")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            self.console.bars.discard(self)


class Console:
    """Where the run's lines and bars go: lines to stdout, bars to stderr (a terminal)."""

    def __init__(self, interactive: bool, log_every: float = LOG_EVERY):
        self.interactive = interactive
        self.log_every = log_every
        self.bars: set[Bar] = set()

    def say(self, text: str) -> None:
        if self.bars:
            from tqdm import tqdm

            tqdm.write(text)
        else:
            print(text, flush=True)

    def error(self, text: str) -> None:
        print(f"error: {text}", file=sys.stderr, flush=True)

    @contextlib.contextmanager
    def bar(self, label: str, total: int, unit: str) -> Iterator[Bar]:
        bar = Bar(self, label, total, unit)
        if bar._bar is not None:
            self.bars.add(bar)
        try:
            yield bar
        finally:
            bar.close()


# --- the command line ----------------------------------------------------------------------


def parse(spec: Spec, argv: list[str] | None) -> Settings:
    """The checked command line (see the module docstring); :class:`ConfigError` and the
    other ``USER_ERRORS`` name what is wrong."""
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
    parser = _parser(spec, defaults)
    args = parser.parse_intermixed_args(argv)
    for flag in spec.flags:
        value = getattr(args, flag.dest)
        if value is not None and not flag.check(value):
            raise ConfigError(f"{flag.name} {value} is not allowed; allowed: {flag.allowed}")
    flags = settings_module.flag_values(args)
    items = settings_module.overrides(args.overrides)
    given = {**flags, **items}
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
                f"{name}={_shown(config.flat()[name])} is not implemented by {spec.prog}; "
                f"allowed here: {_shown(value)}"
            )
    rules = _rules(config)
    from train.tables import counts_and_sizes

    counts_and_sizes(config)  # a split of num_envs that fails does so now, before torch
    if saved is not None:
        _check_resumable(saved, config, given, rules)
    from sto_odno_env.bots.registry import load as load_agent

    for players in eval_counts(config):
        load_agent(config.eval_opponent, rules, players)  # a bad name fails now
    out = Path(config.out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"out={str(out)!r} is a file; allowed: a directory path")
    trainer_flags = {}
    for flag in spec.flags:
        value = getattr(args, flag.dest)
        if value is None and saved is not None and flag.saved and flag.dest in saved.flags:
            value = saved.flags[flag.dest]
        trainer_flags[flag.dest] = flag.default if value is None else value
    progress = not args.no_progress and sys.stderr.isatty()
    return Settings(
        config, rules, out, trainer_flags, args, saved, frozenset(given), progress
    )  # fmt: skip


def _parser(spec: Spec, defaults: dict[str, Any]) -> argparse.ArgumentParser:
    trainer_flags = "".join(f" [{flag.name} {flag.kind.__name__.upper()}]" for flag in spec.flags)
    parser = argparse.ArgumentParser(
        prog=spec.prog,
        usage=f"%(prog)s [--config FILE] [--resume CHECKPOINT] [--no-progress]{trainer_flags}"
        " [--KEY VALUE ...] [key=value ...]",
        description=spec.description,
        epilog="Every config key can also be given as key=value (league.expert=0.5). "
        "A finished run exits 0, one stopped by Ctrl-C or SIGTERM 130 (it saves the last "
        "finished update), a bad command line 2. docs/training.md has the details.",
    )
    parser.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="training config YAML (default: configs/train/ppo.yaml); its values are the "
        "defaults shown below",
    )
    parser.add_argument(
        "--resume",
        default=None,
        metavar="CHECKPOINT",
        help=f"continue a run ({spec.checkpoint}) with its settings, then those given here",
    )
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="progress as lines, not bars (the default when the output is not a terminal)",
    )
    for flag in spec.flags:
        parser.add_argument(
            flag.name,
            type=flag.kind,
            default=None,
            help=f"{flag.help} (default: {_shown(flag.default)}"
            + (", or the resumed run's)" if flag.saved else ")"),
        )
    if spec.add_arguments is not None:
        spec.add_arguments(parser)
    settings_module.add_flags(parser, defaults)
    parser.add_argument(
        "overrides",
        nargs="*",
        metavar="key=value",
        help="any config key, e.g. learning_rate=1e-4 league.expert=0.5",
    )
    return parser


def _shown(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _rules(config: TrainConfig) -> Any:
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


def _check_resumable(saved: Saved, config: TrainConfig, given: dict, rules: Any) -> None:
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
                f"{source} was trained with {name}={_shown(old[name])}; this run has "
                f"{name}={_shown(new[name])} ({where}); they must match to resume (the "
                "saved state has their shapes)"
            )


# --- the run -------------------------------------------------------------------------------


class Session:
    """One command: the phases of a run, its budget, its outputs and its summary."""

    def __init__(self, spec: Spec, settings: Settings, signals: Signals, started: float):
        self.spec = spec
        self.settings = settings
        self.config = settings.config
        self.signals = signals
        self.started = started  # time.monotonic() at the command's start
        self.console = Console(settings.progress)
        self.out = settings.out
        self.counters = settings.saved.counters if settings.saved else Counters()
        no_warm_start = self.config.warm_start == "none" or "warm_start" in spec.ignored
        if no_warm_start and not settings.saved:
            self.counters.warm_started = True
        self.trainer: Trainer | None = None
        self.captured: Any = None  # the state at the last finished update
        self.worth_saving = False  # captured holds work that is not on disk yet
        self.saved_update: int | None = settings.saved.counters.update if settings.saved else None
        self.saved_files: list[Path] = []
        self.phase = "set-up"
        self.stop_reason = ""
        self.writer = None
        self.session_updates = 0
        self.session_decisions = 0
        self.session_update_seconds = 0.0
        self.update_seconds = 0.0  # the last update's
        self.eval_seconds = 0.0  # the last evaluation's
        self.save_seconds = 1.0  # the last save's (a guess before the first)
        self.last_eval = self.last_checkpoint = time.monotonic()
        self.wrote_outputs = False  # this command wrote into --out
        minutes = self.config.minutes
        self.deadline = started + 60 * minutes if minutes else float("inf")
        signals.where = lambda: self.phase

    # --- the budget -----------------------------------------------------------------------

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def _end_reserve(self) -> float:
        """Seconds to keep for the end: the final evaluation and save, and a margin."""
        evaluation = self.eval_seconds if self.config.eval_every_minutes else 0.0
        return evaluation + self.save_seconds + 1.0

    # --- phases ---------------------------------------------------------------------------

    def run(self) -> int:
        try:
            self._header()
            self._set_up()
            if not self.counters.warm_started:
                self._warm_start()
            evaluated = self.counters.evaluations and (
                self.counters.evaluations[-1]["update"] == self.counters.update
            )
            if self.config.eval_every_minutes and not evaluated:
                self._evaluate("evaluation")
            self._loop()
            self.phase = "final evaluation"
            self._final_evaluation()
            self.phase = "saving"
            with self.signals.hold():
                if self.worth_saving or not self.saved_files:
                    self._save()
                self._summary(stopped=None)
            return 0
        except Interrupted as stop:
            self.signals.stopping = True
            self._close_bars()
            return self._stopped(stop)
        finally:
            self.signals.stopping = True
            if self.writer is not None:
                self.writer.close()
            if self.trainer is not None:
                self.trainer.close()

    def _header(self) -> None:
        config = self.config
        say = self.console.say
        say(
            f"{self.spec.prog}: rules {config.rules}, {config.players} players, seed "
            f"{config.seed}, {config.num_envs} games"
        )
        saved = self.settings.saved
        if saved is not None:
            c = saved.counters
            given = ", ".join(sorted(self.settings.given)) or "nothing"
            say(
                f"resuming {saved.path}: update {c.update:,}, {c.global_step:,} learner "
                f"decisions, {c.elapsed / 60:.1f} training minutes; its settings, with "
                f"these from the command line: {given}"
            )
        steps = f"{config.total_steps:,} learner decisions"
        if config.minutes:
            end = time.strftime("%H:%M", time.localtime(time.time() + self.left()))
            say(
                f"budget: {config.minutes:g} min for the whole command (it ends by {end}), "
                f"or {steps} if sooner"
            )
        else:
            say(f"budget: {steps} (no time limit; the speed follows the first update)")
        say(f"output: {self.out} ({self.spec.outputs})")
        if self.spec.ignored:
            say(f"not used by {self.spec.prog}: {', '.join(self.spec.ignored)}")

    def _set_up(self) -> None:
        self.phase = "set-up"
        began = time.monotonic()
        self.console.say("set-up: loading torch and building the trainer")
        self.trainer = self.spec.build(self.settings, self.console)
        self.signals.install()  # after Ray's ray.init, which sets its own SIGTERM handler
        self.signals.check()
        self.captured = self.trainer.capture()
        self.console.say(
            f"set-up done in {time.monotonic() - began:.1f} s: {self.trainer.describe()}"
        )

    def _warm_start(self) -> None:
        self.phase = "warm start"
        config = self.config
        estimate = self.trainer.warm_start_seconds()
        what = (
            f"{config.warm_start_decisions:,} {config.warm_start} decisions, then "
            f"{config.warm_start_epochs} fitting epochs"
        )
        # a policy's weights are taken as they are: only the critic learns its decisions
        verb = (
            "imitate" if config.warm_start in BOTS else "the actor is the policy; the critic learns"
        )
        self.console.say(f"warm start: {verb} {what}: about {_duration(estimate)} here")
        if estimate + self._end_reserve() > self.left():
            self.stop_reason = "budget too short for the warm start"
            raise BudgetError(
                f"minutes={config.minutes:g} leaves {_duration(max(self.left(), 0))}, too "
                f"short for the warm start (about {_duration(estimate)}: {what}); give more "
                "minutes, fewer warm_start_decisions or warm_start=none"
            )
        began = time.monotonic()
        stats = self.trainer.warm_start(self.console)
        seconds = time.monotonic() - began
        with self.signals.hold():
            self.captured = self.trainer.capture()
            self.counters.elapsed += seconds
            self.counters.warm_started = True
            self.worth_saving = True
        self.console.say(
            f"warm start done in {_duration(seconds)}: agreement with {config.warm_start} "
            f"{stats.get('agreement', 0):.3f}, value error {stats.get('value_loss', 0):.3f}"
        )

    def _loop(self) -> None:
        config = self.config
        counters = self.counters
        self.phase = "update"
        with self.console.bar("PPO", config.total_steps, "decisions") as bar:
            bar.advance(min(counters.global_step, config.total_steps))
            while True:
                if counters.global_step >= config.total_steps:
                    self.stop_reason = f"total_steps={config.total_steps:,} reached"
                    break
                if self.left() < self.update_seconds + self._end_reserve():
                    self.stop_reason = f"the {config.minutes:g}-minute budget"
                    break
                self.phase = "update"
                began = time.monotonic()
                if self.trainer.interruptible:
                    update = self.trainer.train(counters)
                    self._finish_update(update, time.monotonic() - began)
                else:  # a signal waits for the update and its bookkeeping
                    with self.signals.hold(self._notice_update, second_stops=True):
                        update = self.trainer.train(counters)
                        self._finish_update(update, time.monotonic() - began)
                self._log_update(update)
                bar.advance(update.decisions, self._postfix(update))
                if self.session_updates == 1:
                    self._say_speed(update)
                now = time.monotonic()
                every = 60 * config.eval_every_minutes
                if every and now - self.last_eval >= every:
                    reserve = self.eval_seconds + self.update_seconds + self._end_reserve()
                    if self.left() >= reserve:
                        self._evaluate("evaluation", bar)
                since = time.monotonic() - self.last_checkpoint
                if since >= 60 * config.checkpoint_every_minutes and self.worth_saving:
                    with self.signals.hold():
                        self._save()

    def _finish_update(self, update: Update, seconds: float) -> None:
        """The captured state and the counters move to the update just finished, together
        (a signal waits)."""
        counters = self.counters
        with self.signals.hold():
            self.captured = self.trainer.capture()
            counters.update += 1
            counters.global_step += update.decisions
            counters.episodes += update.episodes
            counters.elapsed += seconds
            self.worth_saving = True
            self.session_updates += 1
            self.session_decisions += update.decisions
            self.session_update_seconds += seconds
        self.update_seconds = seconds
        update.stats["decisions_per_second"] = update.decisions / max(seconds, 1e-9)

    def _notice_update(self) -> None:
        self.console.say(
            "stopping after the update in progress (a few seconds; another Ctrl-C stops at "
            "once without it)"
        )

    def _final_evaluation(self) -> None:
        counters = self.counters
        if not self.config.eval_every_minutes:
            return
        if counters.evaluations and counters.evaluations[-1]["update"] == counters.update:
            return
        if self.left() < self.eval_seconds + self.save_seconds + 1.0:
            latest = counters.evaluations[-1]["update"] if counters.evaluations else None
            self.console.say(
                f"no time left for the final evaluation (about {_duration(self.eval_seconds)})"
                + (f"; the latest is update {latest:,}'s" if latest is not None else "")
            )
            return
        self._evaluate("final evaluation")

    def _evaluate(self, label: str, bar: Bar | None = None) -> None:
        from train.evaluation import evaluate

        self.phase = label
        config = self.config
        counters = self.counters
        began = time.monotonic()
        from sto_odno_env.bots.registry import load as load_agent

        counts = eval_counts(config)
        results = []
        with self.console.bar(label, sum(map(_matches(config), counts)), "matches") as progress:
            for players in counts:
                opponent = load_agent(
                    config.eval_opponent, self.settings.rules, players, seed=config.seed
                )
                results.append(
                    evaluate(
                        self.trainer.policy_agent(self.captured),
                        opponent,
                        config.eval_opponent,
                        self.settings.rules,
                        players,
                        config.eval_matches,
                        seed=config.seed + EVALUATION_SEED_OFFSET,
                        progress=progress.advance,
                    )
                )
        self.eval_seconds = time.monotonic() - began
        self.last_eval = time.monotonic()
        minutes = counters.elapsed / 60
        rows = [result.row(counters.update, counters.global_step, minutes) for result in results]
        score = _score(rows)
        self.out.mkdir(parents=True, exist_ok=True)
        self.wrote_outputs = True
        with self.signals.hold():
            counters.evaluations.extend(rows)
            if score > counters.best_rate:
                counters.best_rate = score
                self.trainer.write_policy(self.captured, self.out / self._best_name())
            write_evaluations(self.out / "evaluations.csv", counters.evaluations)
        writer = self._writer()
        for result in results:
            if writer is not None:
                writer.add_scalar(f"eval/{result.opponent}", result.rate, counters.global_step)
                writer.add_scalar(f"eval/{result.opponent}_low", result.low, counters.global_step)
            self.console.say(
                f"{label} at update {counters.update:,} ({counters.global_step:,} decisions, "
                f"{counters.elapsed / 60:.1f} training min): {result.describe()} "
                f"({_duration(self.eval_seconds)})"
            )
        if bar is not None:
            self.phase = "update"

    def _save(self) -> None:
        """The trainer's checkpoint and policy file, from the same captured update."""
        if self.captured is None:
            return
        phase, self.phase = self.phase, "saving"
        began = time.monotonic()
        self.out.mkdir(parents=True, exist_ok=True)
        checkpoint = self.trainer.write_checkpoint(self.captured, self.counters, self.out)
        policy = self.out / self.trainer.policy_name
        self.saved_files = [checkpoint]
        if policy != checkpoint:
            self.trainer.write_policy(self.captured, policy)
            self.saved_files.append(policy)
        self.wrote_outputs = True
        self.saved_update = self.counters.update
        self.worth_saving = False
        self.save_seconds = time.monotonic() - began
        self.last_checkpoint = time.monotonic()
        self.phase = phase

    def _stopped(self, stop: Interrupted) -> int:
        phase = self.signals.during or self.phase
        with self.signals.hold():
            if stop.abandon:
                self.console.say(f"{stop.name} again: stopping without the update in progress")
                self.worth_saving = False
            elif self.worth_saving:
                self.console.say(f"{stop.name} during {phase}: saving the last finished update")
                self._save()
            elif self.saved_files and self.saved_update == self.counters.update:
                self.console.say(f"{stop.name} during {phase}: the last finished update is saved")
            elif self.saved_files or self.settings.saved is not None:
                self.console.say(f"{stop.name} during {phase}: nothing new to save")
            else:
                self.console.say(f"{stop.name} during {phase}: nothing to save yet")
            self._summary(stopped=f"stopped by {stop.name} during {phase}")
        return EXIT_STOPPED

    def _best_name(self) -> str:
        """``best.pt`` (``best.zip`` for an SB3 model)."""
        return "best" + Path(self.trainer.policy_name).suffix

    # --- logs and the summary -------------------------------------------------------------

    def _writer(self):
        if self.writer is None:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:  # pragma: no cover - tensorboard is in the train extra
                self.writer = False
                return None
            self.out.mkdir(parents=True, exist_ok=True)
            self.writer = SummaryWriter(str(self.out / "tb"))
        return self.writer or None

    def _log_update(self, update: Update) -> None:
        writer = self._writer()
        if writer is None:
            return
        step = self.counters.global_step
        for name, value in update.stats.items():
            writer.add_scalar(f"train/{name}", value, step)
        for name, rate in self.trainer.scores(self.captured).items():
            writer.add_scalar(f"league/{name}", rate, step)

    def _postfix(self, update: Update) -> str:
        text = f"update {self.counters.update:,}, {_rate(update.stats['decisions_per_second'])}"
        if self.config.minutes:
            used = (time.monotonic() - self.started) / 60
            text += f", {used:.1f}/{self.config.minutes:g} min"
        latest = self.counters.evaluations[-1] if self.counters.evaluations else None
        if latest:
            text += f", vs {latest['opponent']} {latest['rate']:.3f} (update {latest['update']})"
        return text

    def _say_speed(self, update: Update) -> None:
        rate = update.stats["decisions_per_second"]
        config = self.config
        text = (
            f"speed: {_rate(rate)} (learner decisions per second of update time: collection "
            f"and learning), {update.decisions:,} decisions per update"
        )
        to_go = max(config.total_steps - self.counters.global_step, 0)
        if config.minutes:
            reachable = self.counters.global_step + rate * max(self.left() - self._end_reserve(), 0)
            if reachable < config.total_steps:
                text += f"; the budget gives about {reachable / 1e6:.1f}M decisions"
            else:
                text += f"; total_steps in about {_duration(to_go / rate)}"
        else:
            text += f"; total_steps in about {_duration(to_go / rate)}"
        self.console.say(text)

    def _close_bars(self) -> None:
        for bar in list(self.console.bars):
            bar.close()

    def _summary(self, stopped: str | None) -> None:
        counters = self.counters
        config = self.config
        scores = self.trainer.scores(self.captured) if self.trainer and self.captured else {}
        wall = time.monotonic() - self.started
        rate = self.session_decisions / self.session_update_seconds if self.session_updates else 0
        latest = _latest(counters.evaluations)
        best = _best(counters.evaluations)
        if self.saved_files and self.saved_update == counters.update:
            names = " and ".join(str(path) for path in self.saved_files)
            same = ", the same weights" if len(self.saved_files) > 1 else ""
            saved = (
                f"{names}: update {counters.update:,} ({counters.global_step:,} learner "
                f"decisions){same}"
            )
        elif self.saved_files:
            saved = (
                f"{self.saved_files[0]} holds update {self.saved_update:,}; the updates "
                "after it were not saved"
            )
        elif self.settings.saved is not None:
            saved = (
                f"nothing new: {self.settings.saved.path} still holds update "
                f"{self.settings.saved.counters.update:,}"
            )
        else:
            saved = "nothing yet (no update or warm start had finished)"
        status = stopped or f"finished: {self.stop_reason}"
        rows = [("saved", saved)]
        if best is not None and self.trainer is not None:
            text = f"update {best[0]['update']:,}: {_evaluation_text(best)}"
            rows.append((self._best_name(), text))
        if latest is not None:
            rows.append(
                (
                    "latest evaluation",
                    f"update {latest[0]['update']:,}: {_evaluation_text(latest)}",
                )
            )
        if not (counters.update or counters.elapsed or counters.evaluations):
            # nothing ran yet: no figures to report
            rows += [("command time", f"{wall / 60:.1f} min of wall clock")]
            lines = [f"summary ({stopped or 'finished'})"]
            lines += [f"  {name:<17}  {value}" for name, value in rows]
            self.console.say("\n".join(lines))
            return
        rows += [
            ("updates", f"{counters.update:,} ({self.session_updates:,} in this command)"),
            ("learner decisions", f"{counters.global_step:,} trained on"),
            ("learner matches", f"{counters.episodes:,} finished in the training games"),
            (
                "training time",
                f"{counters.elapsed / 60:.1f} min (warm start and updates, all sessions; "
                "evaluations and saving not counted)",
            ),
            (
                "speed",
                f"{_rate(rate)} (learner decisions per second of update time, this command)"
                if self.session_updates
                else "- (no update in this command)",
            ),
            ("command time", f"{wall / 60:.1f} min of wall clock"),
        ]
        if scores:
            shown = ", ".join(f"{name} {rate:.3f}" for name, rate in scores.items())
            rows.append(("league scores", f"{shown} (the learner's, in the training games)"))
        rows.append(("output", str(self.out)))
        width = max(len(name) for name, _ in rows)
        lines = [f"summary ({status})"] + [f"  {name:<{width}}  {value}" for name, value in rows]
        self.console.say("\n".join(lines))
        if not self.wrote_outputs:
            return  # this command wrote nothing into --out: no summary file either
        data = {
            "status": status,
            "saved_update": self.saved_update,
            "saved_files": [str(path) for path in self.saved_files],
            "updates": counters.update,
            "learner_decisions": counters.global_step,
            "learner_matches": counters.episodes,
            "training_minutes": round(counters.elapsed / 60, 3),
            "command_minutes": round(wall / 60, 3),
            "decisions_per_second": round(rate),
            "decisions_per_second_counts": "learner decisions per second of update time "
            "(collection and learning), this command",
            "latest_evaluation": _one_or_list(latest),
            "best_evaluation": _one_or_list(best),
            "league_scores": {name: round(value, 4) for name, value in scores.items()},
            "config": config.to_dict(),
            "out": str(self.out),
            **(self.trainer.extra_summary() if self.trainer else {}),
        }
        self.out.mkdir(parents=True, exist_ok=True)
        write_text(self.out / "summary.json", json.dumps(data, indent=2) + "\n")


class BudgetError(ConfigError):
    """The minutes budget cannot hold what the run must do first."""


def _by_update(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The evaluations' rows, one list per evaluation (one row per player count)."""
    groups: list[list[dict[str, Any]]] = []
    for row in rows:
        if groups and groups[-1][0]["update"] == row["update"]:
            groups[-1].append(row)
        else:
            groups.append([row])
    return groups


def _score(group: list[dict[str, Any]]) -> float:
    """What picks best.pt: one count's rate, or several counts' mean rate above par."""
    if len(group) == 1:
        return group[0]["rate"]
    return sum(row["rate"] - 1.0 / row["players"] for row in group) / len(group)


def _latest(rows: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    groups = _by_update(rows)
    return groups[-1] if groups else None


def _best(rows: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    best = None
    for group in _by_update(rows):  # the first of equal scores: when best.pt was written
        if best is None or _score(group) > _score(best):
            best = group
    return best


def _one_or_list(group: list[dict[str, Any]] | None) -> Any:
    return group[0] if group and len(group) == 1 else group


def _evaluation_text(group: list[dict[str, Any]]) -> str:
    return "; ".join(
        f"{row['rate']:.3f} [{row['low']:.3f}, {row['high']:.3f}] vs {row['opponent']} over "
        f"{row['matches']:,} matches"
        for row in group
    )


def eval_counts(config: TrainConfig) -> list[int]:
    """The player counts an evaluation plays: each of ``players_mix``, or ``players``."""
    return list(config.players_mix) or [config.players]


def _matches(config: TrainConfig) -> Callable[[int], int]:
    """The matches an evaluation plays at a count: whole duplicate deals."""

    def matches(players: int) -> int:
        return max(1, config.eval_matches // players) * players

    return matches


def _rate(value: float) -> str:
    return f"{value / 1000:,.1f}k decisions/s" if value >= 1000 else f"{value:,.0f} decisions/s"


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


# --- files -----------------------------------------------------------------------------------


def write_text(path: Path, text: str) -> None:
    """``text`` to a temporary file beside ``path``, then renamed: never half-written."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def write_evaluations(path: Path, rows: list[dict[str, Any]]) -> None:
    """``evaluations.csv``, written whole."""
    handle = io.StringIO()
    # rows resumed from before a column existed lack it
    writer = csv.DictWriter(handle, fieldnames=list(dict.fromkeys(k for r in rows for k in r)))
    writer.writeheader()
    writer.writerows(rows)
    write_text(path, handle.getvalue())


# --- the entry point -------------------------------------------------------------------------


def user_errors() -> tuple[type[Exception], ...]:
    """The errors that are the command line's or the config's (exit 2, no traceback)."""
    from sto_odno_env.game.rules import RulesError

    return (*run_errors(), RulesError, ValueError)


def run_errors() -> tuple[type[Exception], ...]:
    """The errors a run can meet that are still the command line's: a budget too short,
    a checkpoint that does not fit."""
    from sto_odno_env.bots.checkpoint import CheckpointError
    from sto_odno_env.bots.registry import AgentError

    return (ConfigError, AgentError, CheckpointError)


def main(spec: Spec, argv: list[str] | None = None) -> int:
    """Run a trainer's command (see the module docstring); returns the exit code."""
    return execute(spec, argv)[0]


def execute(spec: Spec, argv: list[str] | None = None) -> tuple[int, Session | None]:
    """:func:`main`, also returning the session (its trainer and counters: for tests)."""
    started = time.monotonic()
    session = None
    signals = Signals()
    signals.install()
    console = Console(False)
    try:
        try:
            settings = parse(spec, argv)
        except user_errors() as error:
            console.error(str(error))
            return 2, None
        session = Session(spec, settings, signals, started)
        try:
            return session.run(), session
        except run_errors() as error:
            console.error(str(error))
            return 2, session
    except Interrupted as stop:  # before the run had anything: parsing, reading a checkpoint
        print(f"{stop.name}: stopped before the run began; nothing saved", flush=True)
        return EXIT_STOPPED, session
    finally:
        signals.stopping = True
        signals.uninstall()
