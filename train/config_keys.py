"""The typed training config: :class:`TrainConfig` (with :class:`LeagueConfig`), the one
place that says each key's type, range, meaning, ``--help`` section and whether a resumed
run must keep it (:meth:`Section.key`); :data:`FIELDS` lists them flat (``league.expert``).

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

from sto_odno_env.bots.names import is_policy_name  # ppo-classic means what agents.load says
from sto_odno_env.envs.table_config import REWARDS
from sto_odno_env.tools.errors import StoOdnoError

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = REPO / "configs" / "train" / "ppo.yaml"
TRAINING_DOC = REPO / "docs" / "training.md"
LEAGUE_BOTS = ("expert", "greedy", "random")  # the bots a league seats and a warm start imitates
# The PPO settings every trainer shares (train/ppo.py, train/sb3_ppo.py, train/rllib_ppo.py),
# and the keywords SB3's MaskablePPO and RLlib's PPOConfig.training take them by where
# their name is not ours: one translation, so that a key means the same in every trainer.
SHARED_PPO_KEYS = (
    "learning_rate",
    "gamma",
    "gae_lambda",
    "clip_coef",
    "ent_coef",
    "vf_coef",
    "max_grad_norm",
    "epochs",
)
PPO_RENAMES = {
    "sb3": {"clip_coef": "clip_range", "epochs": "n_epochs"},
    "rllib": {
        "learning_rate": "lr",
        "gae_lambda": "lambda_",
        "clip_coef": "clip_param",
        "ent_coef": "entropy_coeff",
        "vf_coef": "vf_loss_coeff",
        "max_grad_norm": "grad_clip",
        "epochs": "num_epochs",
    },
}


class ConfigError(StoOdnoError):
    """A training config key or value that is not allowed."""


@dataclass(frozen=True)
class Allowed:
    """The values a key allows: ``words`` say it (in ``--help``, the docs and the error),
    ``check`` tests a value already of the key's type (it may raise :class:`TypeError`
    for another, which counts as not allowed)."""

    words: str
    check: Callable[[object], bool]

    def zero_means(self, what: str) -> Allowed:
        """The same values, the words saying what 0 stands for."""
        return Allowed(f"{self.words} (0: {what})", self.check)


# The checks take Any: each is only given a value of its key's type (config.check's test).
def _anything(value: Any) -> bool:
    return True


def _positive(value: Any) -> bool:
    return value > 0


def _non_negative(value: Any) -> bool:
    return value >= 0


def _fraction(value: Any) -> bool:
    return 0 <= value <= 1


def _count(value: Any) -> bool:
    # The rule set's own range is checked with the rules (config._check_counts): nines
    # allows 2..4, so no range here can name it.
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _widths(value: Any) -> bool:
    return len(value) >= 1 and all(
        isinstance(width, int) and not isinstance(width, bool) and width > 0 for width in value
    )


def _at_least_two(value: Any) -> bool:
    return value >= 2


def _distinct_counts(value: Any) -> bool:
    return len(set(value)) == len(value) and all(_count(c) for c in value)


def _weights(value: Any) -> bool:
    return all(_number(w) and w >= 0 for w in value)


def _warm_start(value: Any) -> bool:
    return value in ("none", *LEAGUE_BOTS) or is_policy_name(value)


TRUE_OR_FALSE = Allowed("true or false", _anything)
POSITIVE_INT = Allowed("an integer > 0", _positive)
NON_NEGATIVE_INT = Allowed("an integer >= 0", _non_negative)
POSITIVE_NUMBER = Allowed("a number > 0", _positive)
NON_NEGATIVE_NUMBER = Allowed("a number >= 0", _non_negative)
FRACTION = Allowed("a number in [0, 1]", _fraction)
WEIGHT = Allowed("a weight >= 0", _non_negative)


@dataclass(frozen=True)
class Section:
    """A ``--help`` section (and a part of docs/training.md's key table)."""

    name: str

    def key(self, allowed: Allowed, meaning: str, *, fixed: bool = False) -> dict[str, object]:
        """The metadata of a config field listed in this section (``field(metadata=...)``,
        no default): what it allows, what it means, and whether a resumed run must keep it
        (``fixed``: the shapes of the saved state depend on it)."""
        return {
            "meaning": meaning,
            "allowed": allowed.words,
            "check": allowed.check,
            "section": self.name,
            "fixed": fixed,
        }


# In the order --help and docs/training.md list them.
RUN = Section("run")
BUDGET = Section("budget")
ROLLOUT = Section("rollout and update")
WARM_START = Section("warm start")
SELF_PLAY = Section("self-play games")
LEAGUE = Section("league")
OUTPUT = Section("evaluation and output")
SECTIONS = tuple(
    section.name for section in (RUN, BUDGET, ROLLOUT, WARM_START, SELF_PLAY, LEAGUE, OUTPUT)
)


@dataclass(frozen=True)
class LeagueConfig:
    """Who sits in the opponent seats of each training game (``train/ppo_parts/league.py``):
    a member is drawn per game and seat at every match start, with these weights."""

    current: float = field(metadata=LEAGUE.key(WEIGHT, "the policy being trained"))
    snapshots: float = field(
        metadata=LEAGUE.key(
            WEIGHT,
            "frozen copies of the policy, the weight shared evenly among those held (until the "
            "first snapshot it goes to current)",
        )
    )
    expert: float = field(metadata=LEAGUE.key(WEIGHT, "the expert bot (agents/)"))
    greedy: float = field(metadata=LEAGUE.key(WEIGHT, "the greedy bot"))
    random: float = field(metadata=LEAGUE.key(WEIGHT, "the random bot"))
    snapshot_every: int = field(metadata=LEAGUE.key(POSITIVE_INT, "updates between snapshots"))
    max_snapshots: int = field(
        metadata=LEAGUE.key(
            POSITIVE_INT, "snapshots held; the oldest is replaced beyond this", fixed=True
        )
    )


@dataclass(frozen=True)
class TrainConfig:
    """A training run's settings (see the module docstring for where they come from)."""

    rules: str = field(
        metadata=RUN.key(
            Allowed("a preset name or a rules YAML file", bool),
            "the rule set (docs/rules.md)",
            fixed=True,
        )
    )
    players: int = field(
        metadata=RUN.key(
            Allowed("a player count the rule set allows (classic 2..6, nines 2..4)", _count),
            "players at each table (with players_mix: the count of the self-play games)",
            fixed=True,
        )
    )
    players_mix: tuple[int, ...] = field(
        metadata=RUN.key(
            Allowed(
                "[] (players only) or a list of distinct player counts the rule set allows, "
                "e.g. [2, 3, 4, 6]",
                _distinct_counts,
            ),
            "train one policy at several player counts at once: the num_envs league games are "
            "split among these counts by players_weights, and evaluations play each "
            "(train/ppo.py only)",
            fixed=True,
        )
    )
    players_weights: tuple[float, ...] = field(
        metadata=RUN.key(
            Allowed(
                "[] (equal) or one number >= 0 per count of players_mix",
                _weights,
            ),
            "the share of the league games at each count of players_mix",
            fixed=True,
        )
    )
    seed: int = field(
        metadata=RUN.key(
            NON_NEGATIVE_INT, "seed of the games, the league, the networks and the evaluation deals"
        )
    )
    device: str = field(
        metadata=RUN.key(
            Allowed("cpu, cuda or auto", lambda v: v in ("cpu", "cuda", "auto")),
            "where the networks run (auto: cuda when torch sees one)",
        )
    )
    threads: int = field(
        metadata=RUN.key(
            NON_NEGATIVE_INT.zero_means("torch's default"),
            "torch CPU threads (1: the engine and torch share the cores best)",
        )
    )
    overlap: bool = field(
        metadata=RUN.key(
            TRUE_OR_FALSE,
            "train/ppo.py: collect the next rollout in a second process (on the other core, "
            "acting with the policy one update behind) while this one trains; false: one "
            "process, collection then update",
        )
    )
    minutes: float = field(
        metadata=BUDGET.key(
            NON_NEGATIVE_NUMBER.zero_means("no limit"),
            "wall-clock budget of the whole command: set-up, warm start, updates, evaluations "
            "and the final save (a resumed run gets this much again)",
        )
    )
    total_steps: int = field(
        metadata=BUDGET.key(
            POSITIVE_INT,
            "stop once the run has trained on this many learner decisions (over all sessions)",
        )
    )
    num_envs: int = field(
        metadata=ROLLOUT.key(
            POSITIVE_INT, "games stepped at once (train/rllib_ppo.py: per env runner)", fixed=True
        )
    )
    rollout_steps: int = field(
        metadata=ROLLOUT.key(POSITIVE_INT, "learner decisions per game per update")
    )
    epochs: int = field(metadata=ROLLOUT.key(POSITIVE_INT, "passes over an update's decisions"))
    minibatch_size: int = field(
        metadata=ROLLOUT.key(POSITIVE_INT, "decisions per gradient step (also the warm start's)")
    )
    learning_rate: float = field(
        metadata=ROLLOUT.key(POSITIVE_NUMBER, "Adam's step size (also the warm start's)")
    )
    anneal_lr: bool = field(
        metadata=ROLLOUT.key(TRUE_OR_FALSE, "decay the learning rate linearly to 0 at total_steps")
    )
    gamma: float = field(metadata=ROLLOUT.key(FRACTION, "discount per learner decision"))
    gae_lambda: float = field(metadata=ROLLOUT.key(FRACTION, "GAE's lambda"))
    clip_coef: float = field(
        metadata=ROLLOUT.key(POSITIVE_NUMBER, "PPO's clip of the probability ratio")
    )
    ent_coef: float = field(
        metadata=ROLLOUT.key(NON_NEGATIVE_NUMBER, "weight of the masked entropy bonus")
    )
    vf_coef: float = field(metadata=ROLLOUT.key(NON_NEGATIVE_NUMBER, "weight of the value loss"))
    max_grad_norm: float = field(
        metadata=ROLLOUT.key(POSITIVE_NUMBER, "gradient clipping (global norm)")
    )
    target_kl: float = field(
        metadata=ROLLOUT.key(
            NON_NEGATIVE_NUMBER.zero_means("never"),
            "stop an update's epochs early once the mean approx_kl is above this",
        )
    )
    reward: str = field(
        metadata=ROLLOUT.key(
            Allowed("match, round or first", lambda v: v in REWARDS),
            "match: +1 to -1 linear in the final place (ties shared); round: also -points/target "
            "at every round end; first: +1 for first place alone, -1/(P-1) for any other",
        )
    )
    hidden: tuple[int, ...] = field(
        metadata=ROLLOUT.key(
            Allowed("a list of positive integers, e.g. [256, 256]", _widths),
            "widths of the policy and value MLPs (tanh)",
            fixed=True,
        )
    )
    warm_start: str = field(
        metadata=WARM_START.key(
            Allowed(
                "none, expert, greedy, random, a shipped policy (ppo-classic, ...) or a policy "
                "file: a policy's weights become the actor's (its widths must be hidden, or "
                "narrower at the same depth: widened keeping its play; trained for any rule set "
                "of the same sizes), and only the critic learns",
                _warm_start,
            ),
            "before PPO the policy imitates this bot over its decisions in every seat, and the "
            "value network learns their returns (train/ppo_parts/imitation.py)",
        )
    )
    warm_start_decisions: int = field(
        metadata=WARM_START.key(POSITIVE_INT, "bot decisions the warm start imitates")
    )
    warm_start_epochs: int = field(
        metadata=WARM_START.key(NON_NEGATIVE_INT, "passes of the warm start over those decisions")
    )
    self_play_games: int = field(
        metadata=SELF_PLAY.key(
            NON_NEGATIVE_INT.zero_means("none"),
            "games beside the num_envs league games in which the current policy plays every "
            "seat and every seat's decisions train (train/ppo_parts/selfplay.py; train/ppo.py "
            "only)",
            fixed=True,
        )
    )
    league: LeagueConfig  # its keys (league.*) are in the league section
    eval_every_minutes: float = field(
        metadata=OUTPUT.key(
            NON_NEGATIVE_NUMBER.zero_means("no evaluation"),
            "minutes between duplicate-deal evaluations against eval_opponent (also one at the "
            "start and one at the end)",
        )
    )
    eval_matches: int = field(
        metadata=OUTPUT.key(
            Allowed("an integer >= 2", _at_least_two),
            "matches per evaluation (the same deals each time)",
        )
    )
    eval_opponent: str = field(
        metadata=OUTPUT.key(
            Allowed("an agent name (expert, greedy, ...)", bool), "the agent evaluated against"
        )
    )
    checkpoint_every_minutes: float = field(
        metadata=OUTPUT.key(
            POSITIVE_NUMBER, "minutes between checkpoints (also at the end and on Ctrl-C)"
        )
    )
    out: str = field(
        metadata=OUTPUT.key(
            Allowed("a directory path", bool),
            "directory for checkpoints, logs and results (a resumed run: its checkpoint's)",
        )
    )

    def ppo_keywords(self, library: typing.Literal["sb3", "rllib"]) -> dict[str, Any]:
        """The :data:`SHARED_PPO_KEYS` under ``library``'s names (:data:`PPO_RENAMES`), ready
        to pass to SB3's ``MaskablePPO(...)`` or RLlib's ``PPOConfig().training(...)`` (keyword
        arguments, each of its parameter's type: floats and the int ``epochs``)."""
        names = PPO_RENAMES[library]
        return {names.get(key, key): getattr(self, key) for key in SHARED_PPO_KEYS}

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
    check: Callable[[object], bool]  # see Allowed
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
        if isinstance(kind, type) and dataclasses.is_dataclass(kind):
            yield from _fields(kind, f"{prefix}{item.name}.")
            continue
        kind = tuple if typing.get_origin(kind) is tuple else kind
        yield Field(f"{prefix}{item.name}", kind, **item.metadata)  # Section.key's metadata


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
