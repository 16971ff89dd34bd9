"""The run harness of the trainers: everything about a training run except the algorithm.

``train/ppo.py``, ``train/rllib_ppo.py`` and ``train/sb3_ppo.py`` each give a
:class:`~train.run.protocol.Spec` (their name, their own flags, how to read their checkpoint
and how to build their :class:`~train.run.protocol.Trainer`) and keep only the algorithm. The
harness does the rest the same way for all three, one concern a module, in the spirit of
Stable-Baselines3's callbacks and logger:

* the command line and the no-overwrite rule: :mod:`train.run.command_line`;
* the budget (``minutes``, ``total_steps``) and the speed estimate: :mod:`train.run.budget`;
* evaluations every ``eval_every_minutes`` and ``best.pt``: :mod:`train.run.evaluations`;
* checkpoints every ``checkpoint_every_minutes``, the files in ``--out``:
  :mod:`train.run.outputs`;
* Ctrl-C and SIGTERM: :mod:`train.run.signals` (the last finished update is saved, exit 130);
* progress bars or lines: :mod:`train.run.console`; the summary: :mod:`train.run.summary`.

This module is the loop: set-up, warm start, a first evaluation, then updates until the
budget or ``total_steps``, with an evaluation and a checkpoint when due; the final
evaluation, the save and the summary. The counters (:class:`~train.run.protocol.Counters`)
change only when an update or an evaluation has finished, so a stop at any moment saves
and reports the last finished update. A finished run exits 0, a stopped one 130, a bad
command line or config 2.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Literal

from sto_odno_env.tools import cli
from train.config_keys import LEAGUE_BOTS
from train.run import evaluations
from train.run.budget import Budget, BudgetError
from train.run.command_line import parse, run_errors, user_errors
from train.run.console import Console, duration, rate
from train.run.evaluations import Evaluations
from train.run.outputs import Outputs
from train.run.protocol import Captured, Counters, Settings, Spec, Trainer, Update
from train.run.signals import Interrupted, Signals
from train.run.summary import (
    Figures,
    evaluation_rows,
    report,
    resume_command,
    saved_text,
    summary_json,
)

if TYPE_CHECKING:
    from torch.utils.tensorboard import SummaryWriter


class Session(Generic[Captured]):
    """One command: the phases of a run (see the module docstring)."""

    def __init__(self, spec: Spec[Captured], settings: Settings, signals: Signals, started: float):
        self.spec, self.settings, self.config = spec, settings, settings.config
        self.signals = signals
        self.started = started  # time.monotonic() at the command's start
        self.console = Console(settings.progress)
        self.out = settings.out
        saved = settings.saved
        self.counters = saved.counters if saved else Counters()
        if not saved and (self.config.warm_start == "none" or "warm_start" in spec.ignored):
            self.counters.warm_started = True
        self.budget = Budget(self.config, started)
        self.evaluations = Evaluations(self.config, settings.rules)
        self.outputs = Outputs(self.out, saved.counters.update if saved else None,
                               settings.overwrite)  # fmt: skip
        self.figures = Figures()
        self.trainer: Trainer[Captured] | None = None  # built by set_up
        self.captured: Captured | None = None  # the trainer's state at the last finished update
        self.phase = "set-up"
        self.stop_reason = ""
        self.unfinished = False  # the budget ended it before total_steps
        self.writer: SummaryWriter | Literal[False] | None = None  # False: no tensorboard
        signals.where = lambda: self.phase

    @property
    def built(self) -> Trainer[Captured]:
        """The trainer, once :meth:`set_up` has built it."""
        if self.trainer is None:
            raise RuntimeError("the trainer is used before set_up built it")
        return self.trainer

    def latest(self) -> tuple[Trainer[Captured], Captured]:
        """The trainer and its state at the last finished update (both there after set-up)."""
        if self.captured is None:
            raise RuntimeError("the trainer's state is used before set_up captured it")
        return self.built, self.captured

    def reserve(self) -> float:
        return self.budget.end_reserve(self.evaluations.seconds, self.outputs.save_seconds)

    def run(self) -> int:
        try:
            self.header()
            self.set_up()
            if not self.counters.warm_started:
                self.warm_start()
            if self.evaluations.wanted(self.counters):
                self.evaluate("evaluation")
            self.loop()
            self.final_evaluation()
            self.phase = "saving"
            with self.signals.hold():
                if self.outputs.worth_saving or not self.outputs.saved_files:
                    self.save()
                self.summary(None)
            return 0
        except Interrupted as stop:
            self.signals.stopping = True
            self.console.close_bars()
            return self.stopped(stop)
        finally:
            self.signals.stopping = True
            if self.writer:
                self.writer.close()
            if self.trainer is not None:
                self.trainer.close()

    def loop(self) -> None:
        """Updates until ``total_steps`` or the budget; evaluations and checkpoints when due."""
        config, counters = self.config, self.counters
        self.phase = "update"
        with self.console.bar("PPO", config.total_steps, "decisions") as bar:
            bar.advance(min(counters.global_step, config.total_steps))
            while True:
                if counters.global_step >= config.total_steps:
                    self.stop_reason = f"total_steps={config.total_steps:,} reached"
                    return
                if not self.budget.room_for_update(self.reserve()):
                    self.stop_reason = f"the {config.minutes:g}-minute budget"
                    self.unfinished = True
                    return
                self.phase = "update"
                update = self.update()
                self.log_update(update)
                bar.advance(update.decisions, self.postfix(update))
                lines = self.budget.speed_lines(
                    self.figures.updates, update.decisions, counters.global_step, self.reserve()
                )
                for line in lines:
                    self.console.say(line)
                if self.evaluations.due() and self.budget.left() >= (
                    self.evaluations.seconds + self.budget.update_seconds + self.reserve()
                ):
                    self.evaluate("evaluation")
                if self.outputs.due(config.checkpoint_every_minutes):
                    with self.signals.hold():
                        self.save()

    def update(self) -> Update:
        """One update; the captured state and the counters move to it together."""
        began = time.monotonic()
        trainer = self.built
        if trainer.interruptible:
            update = trainer.train(self.counters)
            self.finish_update(update, time.monotonic() - began)
        else:  # a signal waits for the update and its bookkeeping
            with self.signals.hold(self.notice_update, second_stops=True):
                update = trainer.train(self.counters)
                self.finish_update(update, time.monotonic() - began)
        return update

    def finish_update(self, update: Update, seconds: float) -> None:
        counters, figures = self.counters, self.figures
        with self.signals.hold():
            self.captured = self.built.capture()
            counters.update += 1
            counters.global_step += update.decisions
            counters.episodes += update.episodes
            counters.elapsed += seconds
            self.outputs.worth_saving = True
            figures.updates += 1
            figures.decisions += update.decisions
            figures.update_seconds += seconds
        self.budget.update_seconds = seconds
        update.stats["decisions_per_second"] = update.decisions / max(seconds, 1e-9)

    # --- the phases around the loop -----------------------------------------------------------

    def header(self) -> None:
        config, say, saved = self.config, self.console.say, self.settings.saved
        say(
            f"{self.spec.prog}: rules {config.rules}, {config.players} players, seed "
            f"{config.seed}, {config.num_envs} games"
        )
        if saved is not None:
            c = saved.counters
            given = ", ".join(sorted(self.settings.given)) or "nothing"
            say(
                f"resuming {saved.path}: update {c.update:,}, {c.global_step:,} learner "
                f"decisions, {c.elapsed / 60:.1f} training minutes; its settings, with "
                f"these from the command line: {given}"
            )
        say(self.budget.header())
        say(f"output: {self.out} ({self.spec.outputs})")
        if self.settings.overwrite:
            say(f"--overwrite: the files of a run already in {self.out} are replaced")
        if self.spec.ignored:
            say(f"not used by {self.spec.prog}: {', '.join(self.spec.ignored)}")

    def set_up(self) -> None:
        self.phase = "set-up"
        began = time.monotonic()
        self.console.say("set-up: loading torch and building the trainer")
        trainer = self.trainer = self.spec.build(self.settings, self.console)
        self.signals.install()  # after Ray's ray.init, which sets its own SIGTERM handler
        self.signals.check()
        self.captured = trainer.capture()
        self.console.say(f"set-up done in {time.monotonic() - began:.1f} s: {trainer.describe()}")

    def warm_start(self) -> None:
        self.phase = "warm start"
        config = self.config
        trainer = self.built
        estimate = trainer.warm_start_seconds()
        what = (
            f"{config.warm_start_decisions:,} {config.warm_start} decisions, then "
            f"{config.warm_start_epochs} fitting epochs"
        )
        # a policy's weights are taken as they are: only the critic learns its decisions
        verb = (
            "imitate"
            if config.warm_start in LEAGUE_BOTS
            else "the actor is the policy; the critic learns"
        )
        self.console.say(f"warm start: {verb} {what}: about {duration(estimate)} here")
        try:
            self.budget.warm_start_fits(estimate, self.reserve(), what)
        except BudgetError:
            self.stop_reason = "budget too short for the warm start"
            raise
        began = time.monotonic()
        stats = trainer.warm_start(self.console)
        seconds = time.monotonic() - began
        with self.signals.hold():
            self.captured = trainer.capture()
            self.counters.elapsed += seconds
            self.counters.warm_started = True
            self.outputs.worth_saving = True
        self.console.say(
            f"warm start done in {duration(seconds)}: agreement with {config.warm_start} "
            f"{stats.get('agreement', 0):.3f}, value error {stats.get('value_loss', 0):.3f}"
        )

    def notice_update(self) -> None:
        self.console.say(
            "stopping after the update in progress (a few seconds; another Ctrl-C stops at "
            "once without it)"
        )

    def final_evaluation(self) -> None:
        self.phase = "final evaluation"
        if not self.evaluations.wanted(self.counters):
            return
        if self.budget.left() < self.reserve():
            rows = self.counters.evaluations
            latest = rows[-1]["update"] if rows else None
            self.console.say(
                f"no time left for the final evaluation (about "
                f"{duration(self.evaluations.seconds)})"
                + (f"; the latest is update {latest:,}'s" if latest is not None else "")
            )
            return
        self.evaluate("final evaluation")

    def evaluate(self, label: str) -> None:
        """An evaluation of the captured policy; ``best.pt`` if it is the best so far."""
        phase, self.phase = self.phase, label
        counters = self.counters
        trainer, captured = self.latest()
        agent = trainer.policy_agent(captured)
        rows = self.evaluations.play(label, agent, counters, self.console)
        with self.signals.hold():
            counters.evaluations.extend(rows)
            score = evaluations.score(rows)
            if score > counters.best_rate:
                counters.best_rate = score
                trainer.write_policy(captured, self.outputs.folder() / self.best_name())
            self.outputs.write_evaluations(counters.evaluations)
            self.log_evaluation(rows)
        self.phase = phase

    def save(self) -> None:
        """The trainer's checkpoint and policy file, from the same captured update."""
        if self.captured is None:
            return
        phase, self.phase = self.phase, "saving"
        self.outputs.save(self.built, self.captured, self.counters)
        self.phase = phase

    def stopped(self, stop: Interrupted) -> int:
        phase = self.signals.during or self.phase
        outputs = self.outputs
        with self.signals.hold():
            if stop.abandon:
                self.console.say(f"{stop.name} again: stopping without the update in progress")
                outputs.worth_saving = False
            elif outputs.worth_saving:
                self.console.say(f"{stop.name} during {phase}: saving the last finished update")
                self.save()
            elif outputs.saved_files and outputs.saved_update == self.counters.update:
                self.console.say(f"{stop.name} during {phase}: the last finished update is saved")
            elif outputs.saved_files or self.settings.saved is not None:
                self.console.say(f"{stop.name} during {phase}: nothing new to save")
            else:
                self.console.say(f"{stop.name} during {phase}: nothing to save yet")
            self.summary(f"stopped by {stop.name} during {phase}")
        return cli.EXIT_STOPPED

    def best_name(self) -> str:
        """``best.pt`` (``best.zip`` for an SB3 model)."""
        return "best" + Path(self.built.policy_name).suffix

    # --- logs and the summary -----------------------------------------------------------------

    def tensorboard(self) -> SummaryWriter | None:
        """The run's tensorboard writer (None without tensorboard); written through
        :meth:`write_scalars`."""
        if self.writer is None:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:  # pragma: no cover - tensorboard is in the train extra
                self.writer = False
                return None
            self.writer = SummaryWriter(str(self.outputs.folder() / "tb"))
        return self.writer or None

    def write_scalars(self, scalars: Mapping[str, object]) -> None:
        """``scalars`` at the current step to tensorboard, held like a save: a stop raised
        inside a write can leave its queue's wake-up spent, and the writer's close then
        waits up to its 120-s flush."""
        with self.signals.hold():
            writer = self.tensorboard()
            if writer is None:
                return
            for tag, value in scalars.items():
                writer.add_scalar(tag, value, self.counters.global_step)

    def log_update(self, update: Update) -> None:
        trainer, captured = self.latest()
        scalars = {f"train/{name}": value for name, value in update.stats.items()}
        scalars |= {f"league/{name}": score for name, score in trainer.scores(captured).items()}
        self.write_scalars(scalars)

    def log_evaluation(self, rows: evaluations.Rows) -> None:
        """An evaluation's rates (and exact exploitability, on a rule set small enough)."""
        scalars: dict[str, object] = {}
        for row in rows:
            scalars[f"eval/{row['opponent']}"] = row["rate"]
            scalars[f"eval/{row['opponent']}_low"] = row["low"]
            if "exploitability" in row:
                scalars[f"eval/exploitability_{row['players']}p"] = row["exploitability"]
        self.write_scalars(scalars)

    def postfix(self, update: Update) -> str:
        text = f"update {self.counters.update:,}, {rate(update.stats['decisions_per_second'])}"
        if self.config.minutes:
            text += f", {self.budget.used_minutes():.1f}/{self.config.minutes:g} min"
        rows = self.counters.evaluations
        if rows:
            latest = rows[-1]
            text += f", vs {latest['opponent']} {latest['rate']:.3f} (update {latest['update']})"
        return text

    def summary(self, stopped: str | None) -> None:
        counters, outputs = self.counters, self.outputs
        scores = self.trainer.scores(self.captured) if self.trainer and self.captured else {}
        wall = time.monotonic() - self.started
        resumed = self.settings.saved
        rows = [("saved", saved_text(outputs, counters, resumed))]
        command = resume_command(self.spec.prog, outputs, resumed)
        if command and self.spec.resumable and (stopped or self.unfinished):
            rows.append(("continue with", command))
        rows += evaluation_rows(counters, self.best_name() if self.trainer else None)
        ran = counters.update or counters.elapsed or counters.evaluations
        status = stopped or (f"finished: {self.stop_reason}" if ran else "finished")
        report(self.console, status, rows, counters, self.figures, wall, scores, self.out)
        if not outputs.wrote:
            return  # this command wrote nothing into --out: no summary file either
        extra = self.trainer.extra_summary() if self.trainer else {}
        text = summary_json(status, outputs, counters, self.figures, wall, scores, self.config,
                            extra)  # fmt: skip
        outputs.write_text("summary.json", text)


def main(
    spec: Spec[Captured], argv: list[str] | None = None, settings: Settings | None = None
) -> int:
    """Run a trainer's command (see the module docstring); returns the exit code. A library
    caller (the best-response trainer) gives checked ``settings`` instead of ``argv``."""
    return execute(spec, argv, settings)[0]


def execute(
    spec: Spec[Captured], argv: list[str] | None = None, settings: Settings | None = None
) -> tuple[int, Session[Captured] | None]:
    """:func:`main`, also returning the session (its trainer and counters: for tests)."""
    started = time.monotonic()
    session: Session[Captured] | None = None
    signals = Signals()
    signals.install()
    console = Console(False)
    try:
        try:
            settings = parse(spec, argv) if settings is None else settings
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
        return cli.EXIT_STOPPED, session
    finally:
        signals.stopping = True
        signals.uninstall()
