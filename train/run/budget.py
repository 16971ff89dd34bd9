"""The run's budget: ``minutes`` bound the whole command (set-up, warm start, updates,
evaluations and the final save), ``total_steps`` the learner decisions over all its
sessions.

The warm start's time is measured on a small sample before it starts, and a budget too
short for it is refused then; the update loop stops early enough for the final evaluation
and save. The speed, and what the budget will give, are first said after the first update
marked as settling (that update carries the start-up: the collector process's start and
first rollouts, caches warming), then measured over the updates after it
(:data:`SETTLE_UPDATES` of them, or :data:`SETTLE_SECONDS`), which is the rate the run holds.
"""

from __future__ import annotations

import time

from train.config_keys import ConfigError, TrainConfig
from train.run.console import duration, rate

SETTLE_UPDATES = 4  # updates after the first over which the speed estimate is measured
SETTLE_SECONDS = 60.0  # ... or fewer, when they take this long


class BudgetError(ConfigError):
    """The minutes budget cannot hold what the run must do first."""


class Budget:
    """The deadline of ``minutes`` from the command's start, and the speed estimate."""

    def __init__(self, config: TrainConfig, started: float):
        self.config = config
        self.started = started  # time.monotonic() at the command's start
        self.deadline = started + 60 * config.minutes if config.minutes else float("inf")
        self.update_seconds = 0.0  # the last update's
        self._measured: list[tuple[int, float]] = []  # (decisions, seconds) after the first
        self._estimated = False

    def left(self) -> float:
        """Seconds left of the budget (infinite without ``minutes``)."""
        return self.deadline - time.monotonic()

    def used_minutes(self) -> float:
        return (time.monotonic() - self.started) / 60

    def end_reserve(self, eval_seconds: float, save_seconds: float) -> float:
        """Seconds to keep for the end: the final evaluation and save, and a margin."""
        evaluation = eval_seconds if self.config.eval_every_minutes else 0.0
        return evaluation + save_seconds + 1.0

    def header(self) -> str:
        """The first lines' budget: what bounds the run, and when it ends."""
        config = self.config
        steps = f"{config.total_steps:,} learner decisions"
        if not config.minutes:
            return f"budget: {steps} (no time limit; the speed follows the first updates)"
        end = time.strftime("%H:%M", time.localtime(time.time() + self.left()))
        return (
            f"budget: {config.minutes:g} min for the whole command (it ends by {end}), "
            f"or {steps} if sooner"
        )

    def warm_start_fits(self, estimate: float, reserve: float, what: str) -> None:
        """Refuse a warm start of ``estimate`` seconds that the budget cannot hold."""
        if estimate + reserve <= self.left():
            return
        raise BudgetError(
            f"minutes={self.config.minutes:g} leaves {duration(max(self.left(), 0))}, too "
            f"short for the warm start (about {duration(estimate)}: {what}); give more "
            "minutes, fewer warm_start_decisions or warm_start=none"
        )

    def room_for_update(self, reserve: float) -> bool:
        """Another update (as long as the last) and the end still fit the budget."""
        return self.left() >= self.update_seconds + reserve

    def speed_lines(
        self, session_updates: int, decisions: int, global_step: int, reserve: float
    ) -> list[str]:
        """The speed lines due after this command's update ``session_updates``: the first
        update's, marked as settling, then one measured over the updates after it."""
        seconds = self.update_seconds  # the update just timed
        if session_updates == 1:
            return [
                f"speed: {rate(decisions / max(seconds, 1e-9))} over the first update "
                f"(settling: it carries the start-up; measured again over the next "
                f"{SETTLE_UPDATES} updates), {decisions:,} decisions per update"
            ]
        if self._estimated:
            return []
        self._measured.append((decisions, seconds))
        total = sum(s for _, s in self._measured)
        if len(self._measured) < SETTLE_UPDATES and total < SETTLE_SECONDS:
            return []
        self._estimated = True
        held = sum(d for d, _ in self._measured) / max(total, 1e-9)
        return [self._estimate(held, len(self._measured), global_step, reserve)]

    def _estimate(self, held: float, updates: int, global_step: int, reserve: float) -> str:
        config = self.config
        text = (
            f"speed: {rate(held)} over the {updates} updates after the first (learner "
            "decisions per second of update time: collection and learning)"
        )
        to_go = max(config.total_steps - global_step, 0)
        if config.minutes:
            reachable = global_step + held * max(self.left() - reserve, 0)
            if reachable < config.total_steps:
                return text + f"; the budget gives about {reachable / 1e6:.1f}M decisions"
        return text + f"; total_steps in about {duration(to_go / held)}"
