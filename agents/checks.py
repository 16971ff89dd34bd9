"""What the evaluation harness refuses before it plays: the ``eval`` extra's packages it
would need (:func:`check_dependencies`) and a match count that duplicate deals cannot play
(:func:`check_matches`), each as an :class:`EvaluationError`."""

from __future__ import annotations

import importlib

from sto_odno_env.tools import cli
from sto_odno_env.tools.errors import StoOdnoError


class EvaluationError(StoOdnoError):
    """Evaluation settings that cannot be played as asked."""


def check_dependencies(progress: bool = True, out: bool = False, ratings: bool = True) -> None:
    """Raise :class:`EvaluationError` naming every optional package the evaluation would
    need and cannot import (all in the ``eval`` extra), with the command that installs them:
    openskill for the ratings, tqdm for the progress bar, matplotlib for the files of
    ``--out``. Called before any work, so that a missing package never costs a run."""
    needed = {}
    if ratings:
        needed["openskill"] = "the OpenSkill ratings"
    if progress:
        needed["tqdm"] = "the progress bar; --no-progress goes without"
    if out:
        needed["matplotlib"] = "winrates.png in --out"
    missing = []
    for module, purpose in needed.items():
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(f"{module} ({purpose})")
    if missing:
        raise EvaluationError(
            f"the evaluation needs {', '.join(missing)}, not installed; install the eval "
            f"extra: {cli.python_command()} -m pip install -e '.[eval]' (in a clone; a "
            "package install: pip install 'sto-odno-env[eval]')"
        )


def check_matches(matches: int, players: int) -> None:
    """Duplicate deals play every deal in all ``players`` seat rotations, so ``matches`` must
    be a positive multiple of ``players``; raise :class:`EvaluationError` naming the nearest
    allowed counts otherwise (never round silently)."""
    if matches < 1 or matches % players:
        below = max(players, matches // players * players)
        above = (matches // players + 1) * players
        choices = f"{below} or {above}" if below != above and matches > players else f"{players}"
        raise EvaluationError(
            f"matches {matches} is not a positive multiple of {players} (each deal is "
            f"played in all {players} seat rotations); allowed: e.g. {choices}"
        )
