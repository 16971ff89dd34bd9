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

Every env checks an action it is given here as well (:func:`checked_action`,
:func:`checked_actions`): an action must be an integer of the action space, ``0 <= a <
num_actions`` (a Python ``int``, a numpy integer or a 0-d integer array; for a batch, an
array of integers), whatever ``illegal_action`` says; anything else (``99``, ``-1``,
``1.5``, ``"3"``, ``True``, ``None``) raises :class:`ActionSpaceError` naming what was given
and what is allowed, and nothing is coerced. ``illegal_action="penalize"`` is for actions of
the space that the mask forbids. The batched games under the learner envs take integers
only (:func:`integer_actions`) and, as the engine, treat any integer that is not a legal
action by ``illegal_action``.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..bots.policy import as_policy
from ..bots.registry import resolve_opponents
from ..game.rules import Rules, load_rules
from ..tools.errors import StoOdnoError

REWARDS = ("match", "round", "first")
ILLEGAL = ("raise", "penalize")


class ActionSpaceError(StoOdnoError):
    """An action that is not an integer of the env's action space (not an illegal move,
    which ``illegal_action`` handles: there is no such action at all)."""


def _allowed(num_actions: int) -> str:
    return f"allowed: an integer from 0 to {num_actions - 1} (an int or a numpy integer)"


def checked_action(action: object, num_actions: int) -> int:
    """``action`` as an ``int`` when it is an integer of ``range(num_actions)`` (a Python
    ``int``, a numpy integer or a 0-d integer array; never a bool), else
    :class:`ActionSpaceError`."""
    value = action
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if not isinstance(value, int | np.integer) or isinstance(value, bool | np.bool_):
        raise ActionSpaceError(
            f"action {action!r} ({type(action).__name__}) is not an action of this env; "
            f"{_allowed(num_actions)}"
        )
    if not 0 <= int(value) < num_actions:
        raise ActionSpaceError(
            f"action {int(value)} is outside the action space; {_allowed(num_actions)}"
        )
    return int(value)


def integer_actions(actions: object, batch: int) -> np.ndarray:
    """(batch,) int64: ``actions`` when it holds ``batch`` integers (an integer array or a
    sequence of ints), else :class:`ActionSpaceError`; never coerced from floats, bools or
    text. The batched games (:class:`~sto_odno_env.envs.learner.LearnerGames`) check this
    much and treat an integer that is no legal action by ``illegal_action``; the envs over
    them check the action space too (:func:`checked_actions`)."""
    array = np.asarray(actions)
    if array.dtype.kind not in "iu":  # bool, float, str, object: never coerced
        raise ActionSpaceError(
            f"actions of dtype {array.dtype} are not actions; allowed: integers (an int or "
            "numpy integer array), one per game"
        )
    if array.size != batch:
        raise ActionSpaceError(
            f"{array.size} actions (shape {array.shape}) for {batch} games; give one per game"
        )
    return array.reshape(batch).astype(np.int64)


def illegal_message(legal_bits: Any, action: int, rules: Rules) -> str:
    """What ``infos["illegal_action"]`` holds in every env that gives one info per game
    (the AEC env, the Gymnasium env, the SB3 VecEnv's per-game infos): the action and the
    legal actions by name, e.g. ``illegal action 40 (draw); legal actions: 3 (play 9♠)``.
    ``legal_bits`` is the learner's mask before the step."""
    from ..game import engine

    return engine.illegal_bits_message(int(legal_bits), int(action), deck=rules.deck)


def checked_actions(actions: object, batch: int, num_actions: int) -> np.ndarray:
    """(batch,) int64: ``actions`` when it holds ``batch`` integers of
    ``range(num_actions)`` (an integer array or a sequence of ints), else
    :class:`ActionSpaceError` naming the first that is not."""
    given = np.asarray(actions)
    array = integer_actions(given, batch)
    given = given.reshape(batch)  # compared as given: a cast could wrap a huge unsigned value
    outside = (given < 0) | (given >= num_actions)
    if outside.any():
        game = int(np.flatnonzero(outside)[0])
        raise ActionSpaceError(
            f"action {given[game]} in game {game} is outside the action space; "
            f"{_allowed(num_actions)}"
        )
    return array


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

    # A name, path or mapping given as rules is loaded in __post_init__: the field holds a
    # Rules (the constructor's own signature, below for the type checker, takes them all).
    rules: Rules = "classic"  # type: ignore[assignment]  # loaded in __post_init__
    players: int = 2
    opponents: object = None
    learner_seat: int | None = None
    reward: str = "match"
    illegal_action: str = "raise"
    workers: int = 1
    ready_share: float | None = None

    if TYPE_CHECKING:

        def __init__(
            self,
            rules: Rules | str | Path | Mapping[str, Any] = "classic",
            players: int = 2,
            opponents: object = None,
            learner_seat: int | None = None,
            reward: str = "match",
            illegal_action: str = "raise",
            workers: int = 1,
            ready_share: float | None = None,
        ) -> None: ...

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
    if isinstance(share, bool) or not isinstance(share, numbers.Real) or not 0 < float(share) <= 1:
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
