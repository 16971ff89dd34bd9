"""A policy read from a table: observation -> action probabilities.

The shape of a strategy solved exactly (``cfr-micro``, from ``python -m agents.exact
solve``): one row of probabilities per distinct observation of a small rule set's whole
game tree. The file is a NumPy ``.npz`` of plain arrays (``observations``,
``probabilities``) and a JSON header (``meta``), read with ``allow_pickle=False``: loading
it never runs code.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..game.rules import Rules, load_rules
from ..tools import cli
from ..tools.errors import StoOdnoError
from ..views.observation import OBSERVATION_VERSION, obs_size
from .policy import BasePolicy

FORMAT = "sto-odno-tabular-policy"


class TabularPolicyError(StoOdnoError):
    """A tabular policy file that cannot be used at the table asked for."""


class TabularPolicy(BasePolicy):
    """Plays each observation's row of a table, sampling a mixed strategy with ``seed``.

    ``probabilities(observations, masks)`` gives the rows themselves (what the exact tools
    evaluate). An observation the table lacks is refused: the table covers every
    observation of its rule set's tree.
    """

    def __init__(
        self,
        rules: Rules | str,
        observations: np.ndarray,
        probabilities: np.ndarray,
        *,
        name: str = "tabular",
        seed: int | None = 0,
    ):
        self.rules = load_rules(rules)
        self.name = name
        observations = np.asarray(observations, dtype=np.float32)
        probabilities = np.asarray(probabilities, dtype=np.float64)
        if observations.ndim != 2 or observations.shape[1] != obs_size(self.rules):
            raise TabularPolicyError(
                f"{name}: observations of shape {observations.shape} do not fit rules "
                f"{self.rules.name!r} (allowed: (K, {obs_size(self.rules)}))"
            )
        if probabilities.shape != (len(observations), self.rules.num_actions):
            raise TabularPolicyError(
                f"{name}: probabilities of shape {probabilities.shape}; allowed: "
                f"({len(observations)}, {self.rules.num_actions})"
            )
        self.table = probabilities
        self.rows = {row.tobytes(): k for k, row in enumerate(observations)}
        self.generator = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.generator = np.random.default_rng(seed)

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        observations = np.asarray(observations, dtype=np.float32)
        index = []
        for row in observations:
            k = self.rows.get(row.tobytes())
            if k is None:
                raise TabularPolicyError(
                    f"{self.name}: an observation outside its table (rules "
                    f"{self.rules.name!r}); it plays only the tables of the rules it was "
                    "solved for"
                )
            index.append(k)
        table = self.table[np.array(index, dtype=np.intp)]
        # A row's mass sits on its legal actions; the mask guards a hand-edited file.
        table = np.where(np.asarray(masks) > 0, table, 0.0)
        return table / table.sum(axis=1, keepdims=True)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        table = self.probabilities(observations, masks)
        cumulative = np.cumsum(table, axis=1)
        draws = self.generator.random(len(table))[:, None] * cumulative[:, -1:]
        return np.minimum((cumulative <= draws).sum(axis=1), table.shape[1] - 1)

    def save(self, path: str | Path, meta: dict[str, object] | None = None) -> Path:
        """Write the table (see the module docstring); ``meta`` joins the JSON header."""
        path = Path(path)
        observations = np.array(
            [np.frombuffer(key, dtype=np.float32) for key in self.rows], dtype=np.float32
        )
        header = {
            "format": FORMAT,
            "rules": self.rules.to_dict(),
            "observation_version": OBSERVATION_VERSION,
            **(meta or {}),
        }
        with cli.atomic_open(path, "wb") as handle:  # never half a file
            np.savez_compressed(
                handle,
                observations=observations,
                probabilities=self.table,
                meta=np.array(json.dumps(header)),
            )
        return path


def read_header(path: str | Path) -> dict:
    """A tabular policy file's JSON header: its format, rules, players, solver, ..."""
    with np.load(path, allow_pickle=False) as data:
        return json.loads(str(data["meta"]))


def load_tabular(
    path: str | Path,
    rules: Rules | str | None = None,
    players: int | None = None,
    *,
    name: str | None = None,
    seed: int | None = 0,
) -> TabularPolicy:
    """A :class:`TabularPolicy` from a file, refused unless it was solved for ``rules``
    (its own rule set when None) and ``players`` (any it lists when None)."""
    path = Path(path)
    name = name or path.stem
    try:
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(str(data["meta"]))
            observations, probabilities = data["observations"], data["probabilities"]
    except (OSError, KeyError, ValueError) as error:
        raise TabularPolicyError(f"{name}: {path} is not a tabular policy file ({error})") from None
    if header.get("format") != FORMAT:
        raise TabularPolicyError(f"{name}: {path} is not a {FORMAT} file")
    if header.get("observation_version") != OBSERVATION_VERSION:
        raise TabularPolicyError(
            f"{name}: solved for observation layout {header.get('observation_version')}; this "
            f"kit observes with layout {OBSERVATION_VERSION}"
        )
    solved = Rules.from_dict(header["rules"])
    rules = solved if rules is None else load_rules(rules)
    if solved.replace(name=rules.name) != rules:
        raise TabularPolicyError(
            f"{name}: solved for rules {solved.name!r}; it plays only that rule set "
            f"(asked for {rules.name!r})"
        )
    counts = header.get("players", [])
    if players is not None and counts and players not in counts:
        raise TabularPolicyError(
            f"{name}: solved for {' or '.join(map(str, counts))} players, not {players}"
        )
    table = probabilities.astype(np.float64)
    return TabularPolicy(rules, observations, table, name=name, seed=seed)
