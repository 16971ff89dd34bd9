"""One learner table's settings, checked once: :class:`TableConfig`.

The learner envs (:class:`~sto_odno_env.envs.gym_env.StoOdnoEnv`,
:class:`~sto_odno_env.envs.gym_env.StoOdnoVectorEnv`, :class:`~sto_odno_env.envs.sb3.StoOdnoVecEnv`)
and the batched games under them (:class:`~sto_odno_env.envs.learner.LearnerGames`,
:class:`~sto_odno_env.envs.sharded.ShardedLearnerGames`) take a config as ``config=``, or
keyword arguments that build one; ``rules`` and ``players`` may also come first by
position::

    config = TableConfig(rules="ukrainian", players=3, opponents="expert", reward="round")
    env = StoOdnoVectorEnv(num_envs=64, config=config)
    same = StoOdnoVectorEnv(64, "ukrainian", 3, opponents="expert", reward="round")

What is not a setting of the table stays an argument of the object that runs it: the
number of games (``num_envs``, ``batch``), ``seed``, ``copy`` and ``render_mode``. The AEC
env checks its ``rules``, ``players``, ``reward`` and ``illegal_action`` here too.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Sequence
from typing import Any

from ..bots.policy import as_policy
from ..bots.registry import resolve_opponents
from ..game.rules import Rules, load_rules

REWARDS = ("match", "round", "first")
ILLEGAL = ("raise", "penalize")


@dataclasses.dataclass(frozen=True)
class TableConfig:
    """The settings of a table with one learning seat; checked when built.

    * ``rules``: a preset name, a YAML path, a mapping or a :class:`Rules` (kept loaded);
    * ``players``: 2..6, as the rules allow;
    * ``opponents``: one policy for every opponent seat, or a sequence of ``players - 1``
      (entry ``i`` plays the seat ``i + 1`` places after the learner), or a table of
      opponents (an object with ``act_games``, see
      :class:`~sto_odno_env.envs.learner.LearnerGames`);
      registry names (``"expert"``, a checkpoint path) load that agent; None: random play;
    * ``learner_seat``: the learner's seat, or None for a random seat every match;
    * ``reward``: ``"match"`` (the final ranking), ``"round"`` (also −points/target at
      every round end) or ``"first"`` (+1 for first place alone, −1/(P−1) for any other:
      :func:`~sto_odno_env.game.rewards.first_place`);
    * ``illegal_action``: ``"raise"`` (IllegalActionError) or ``"penalize"`` (−1, and the
      episode ends);
    * ``workers``: processes that step the games (:mod:`sto_odno_env.envs.sharded`); the vector
      envs only;
    * ``ready_share``: None (every step returns with the learner to act in every game), or
      a share in (0, 1]: a step returns once that share of the games is at the learner's
      turn, and the other games' opponents play on in the next step
      (:meth:`~sto_odno_env.envs.learner.LearnerGames.step`, ``ready``; docs/benchmark.md).
    """

    rules: Rules | str = "classic"
    players: int = 2
    opponents: Any = None
    learner_seat: int | None = None
    reward: str = "match"
    illegal_action: str = "raise"
    workers: int = 1
    ready_share: float | None = None

    def __post_init__(self) -> None:
        rules = load_rules(self.rules)
        rules.check_players(self.players)
        object.__setattr__(self, "rules", rules)
        if self.reward not in REWARDS:
            raise ValueError(f"reward={self.reward!r} is not allowed; allowed: {REWARDS}")
        if self.illegal_action not in ILLEGAL:
            raise ValueError(
                f"illegal_action={self.illegal_action!r} is not allowed; allowed: {ILLEGAL}"
            )
        seat = self.learner_seat
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"learner_seat={seat} is not a seat 0..{self.players - 1}")
        check_workers(self.workers)
        object.__setattr__(self, "ready_share", check_ready_share(self.ready_share))
        object.__setattr__(self, "opponents", check_opponents(self.opponents, rules, self.players))

    def __repr__(self) -> str:
        shown = {field: getattr(self, field) for field in SETTINGS}
        shown["rules"] = self.rules.name  # a rule set's name, not its every key
        return f"TableConfig({', '.join(f'{key}={value!r}' for key, value in shown.items())})"

    def replace(self, **changes: Any) -> TableConfig:
        """A copy with ``changes`` (checked again)."""
        _check_names(changes)
        return dataclasses.replace(self, **changes)


SETTINGS = tuple(field.name for field in dataclasses.fields(TableConfig))


def _check_names(settings: dict[str, Any]) -> None:
    unknown = [name for name in settings if name not in SETTINGS]
    if unknown:
        raise TypeError(f"unknown setting {unknown[0]!r}; allowed: {', '.join(SETTINGS)}")


def table_config(config: TableConfig | None = None, /, **settings: Any) -> TableConfig:
    """``config`` (the defaults when None) with ``settings`` changed. ``rules=None`` and
    ``players=None`` mean "as in ``config``": the positional defaults of the envs."""
    for name in ("rules", "players"):
        if settings.get(name, "") is None:
            del settings[name]
    _check_names(settings)
    if config is None:
        return TableConfig(**settings)
    if not isinstance(config, TableConfig):
        raise TypeError(f"config must be a TableConfig, got {type(config).__name__}")
    return config.replace(**settings) if settings else config


def check_workers(workers: Any) -> None:
    """Refuse a worker count that is not a positive integer (``True`` and ``1.0`` too)."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")


def check_ready_share(share: Any) -> float | None:
    """``share`` as a float if it is None or a number in (0, 1]; a ValueError otherwise."""
    if share is None:
        return None
    if isinstance(share, bool) or not isinstance(share, numbers.Real) or not 0 < share <= 1:
        raise ValueError(
            f"ready_share={share!r} is not allowed; allowed: None (off) or a number in (0, 1]"
        )
    return float(share)


def check_opponents(opponents: Any, rules: Rules, players: int) -> Any:
    """``opponents`` with registry names loaded for ``rules`` and ``players``; raises for a
    sequence that is not one policy per opponent seat, or an entry that is not a policy."""
    if hasattr(opponents, "act_games"):  # a table of opponents draws its own
        return opponents
    is_sequence = isinstance(opponents, Sequence) and not isinstance(opponents, str)
    if is_sequence and len(opponents) != players - 1:
        raise ValueError(
            f"opponents: expected {players - 1} policies (one per opponent seat), "
            f"got {len(opponents)}"
        )
    if opponents is None:  # random play
        return None
    opponents = resolve_opponents(opponents, rules, players)
    for policy in opponents if is_sequence else [opponents]:
        as_policy(policy)  # raises TypeError for what is not a policy
    return opponents
