"""The seam between the run harness (``train/run/session.py``) and an algorithm: what a trainer
gives (:class:`Spec`, :class:`Trainer`) and what the harness hands it (:class:`Settings`,
:class:`Saved`, :class:`Counters`, :class:`Update`).

A trainer file (``train/ppo.py``, ``train/rllib_ppo.py``, ``train/sb3_ppo.py``) keeps its
algorithm and gives a :class:`Spec`; the harness does the rest the same way for all three.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from train.config_keys import TrainConfig

if TYPE_CHECKING:
    from sto_odno_env.bots.policy import BasePolicy
    from sto_odno_env.game.rules import Rules
    from train.run.console import Console

# Plain data, as a checkpoint or summary.json holds it (numbers, strings, tensors, lists and
# dicts of them).
Record = dict[str, object]
Captured = TypeVar("Captured")  # a trainer's state at the end of an update (its own type)
T = TypeVar("T")


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
    evaluations: list[dict[str, object]] = field(default_factory=list)  # evaluations.csv rows

    def to_dict(self) -> Record:
        """Plain data for a checkpoint (``torch.load(weights_only=True)`` reads it back)."""
        data: Record = asdict(self)
        data["evaluations"] = json.dumps(self.evaluations)
        return data

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], evaluations: str | list[dict[str, object]] | None = None
    ) -> Counters:
        """The counters of :meth:`to_dict` (also of checkpoints that kept the evaluations
        beside the counters: ``evaluations``), read from a checkpoint."""
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


class Trainer(Protocol[Captured]):
    """The algorithm side of a run, built by :attr:`Spec.build`.

    ``interruptible``: an update may be cut short by a signal, because :meth:`capture`
    copies the state at every update's end (``train/ppo.py``). Otherwise signals wait for
    the update in progress to finish, and :meth:`capture` may return the live state.
    """

    interruptible: bool
    policy_name: str  # the policy file in --out: "policy.pt"

    def warm_start(self, console: Console) -> dict[str, float]:
        """Imitate ``config.warm_start`` (train/ppo_parts/imitation.py); its statistics."""

    def warm_start_seconds(self) -> float:
        """The warm start's time, measured on a small sample of it."""

    def train(self, counters: Counters) -> Update:
        """One update (collect, then learn); ``counters`` are those before it."""

    def capture(self) -> Captured:
        """The state at the end of the last finished update."""

    def policy_agent(self, captured: Captured) -> BasePolicy:
        """The captured policy as a greedy agent (for the evaluations)."""

    def write_policy(self, captured: Captured, path: Path) -> None:
        """The captured policy as a policy file."""

    def write_checkpoint(self, captured: Captured, counters: Counters, out: Path) -> Path:
        """The captured state and ``counters``, for ``--resume``; returns its path."""

    def scores(self, captured: Captured) -> dict[str, float]:
        """The learner's score against each league member in the training games."""

    def describe(self) -> str:
        """One line: what the trainer runs (games, league)."""

    def extra_summary(self) -> Record:
        """Trainer-specific entries of summary.json."""

    def close(self) -> None:
        """Release what the trainer holds (processes, files)."""


@dataclass(frozen=True)
class Saved:
    """A checkpoint read for ``--resume``: its config (nested), the trainer flags it was run
    with, its counters, and the whole data for the trainer to restore."""

    path: Path
    config: Record
    flags: Record
    counters: Counters
    data: Record


@dataclass(frozen=True)
class Flag:
    """A trainer's own command-line flag (not a config key). ``saved``: a resumed run
    takes it from the checkpoint unless given."""

    name: str  # "--env-runners"
    kind: type
    default: object
    help: str
    saved: bool = False
    check: Callable[[object], bool] = lambda value: True
    allowed: str = ""

    @property
    def dest(self) -> str:
        return self.name[2:].replace("-", "_")


@dataclass(frozen=True)
class Spec(Generic[Captured]):
    """What a trainer tells the harness; ``Captured`` is its trainer's captured state."""

    prog: str  # "python train/ppo.py"
    description: str
    checkpoint: str  # what --resume takes, e.g. "runs/ppo/checkpoint.pt"
    build: Callable[[Settings, Console], Trainer[Captured]]
    read_checkpoint: Callable[[Path], Saved]
    outputs: str  # what --out receives, for the first lines
    flags: tuple[Flag, ...] = ()
    # keys this trainer does not implement -> the only value allowed
    unsupported: Record = field(default_factory=dict)
    # keys (or sections: "league") this trainer does not use, whatever their value
    ignored: tuple[str, ...] = ()
    # extra parser set-up and a check of the parsed flags (e.g. --export)
    add_arguments: Callable[[argparse.ArgumentParser], None] | None = None
    resumable: bool = True  # --resume continues its runs (the stop summary says how)


@dataclass(frozen=True)
class Settings:
    """A checked command line: the config, its rules, the trainer flags, the resumed
    checkpoint (if any) and which keys the command line gave."""

    config: TrainConfig
    rules: Rules
    out: Path
    flags: Record
    args: argparse.Namespace | None
    saved: Saved | None
    given: frozenset[str]
    progress: bool
    overwrite: bool = False  # --overwrite: a fresh run replaces the run in --out

    def flag(self, name: str, kind: type[T]) -> T:
        """The trainer flag ``name`` (its :class:`Flag`'s ``dest``), of its ``kind``."""
        value = self.optional_flag(name, kind)
        if value is None:
            raise TypeError(f"trainer flag {name!r} has no value")
        return value

    def optional_flag(self, name: str, kind: type[T]) -> T | None:
        """The trainer flag ``name``, of its ``kind``, or None (a flag whose default is None)."""
        value = self.flags[name]
        if value is not None and not isinstance(value, kind):
            raise TypeError(f"trainer flag {name!r} is {value!r}, not a {kind.__name__}")
        return value
