"""How the terminal game names its seats: ``You``, and each opponent by its agent name,
a checkpoint path by the shortest tail of folders that tells two files apart."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def player_names(players: int, you: int, opponents: Sequence[str]) -> list[str]:
    """``You`` for the human and ``name (seat k)`` for each opponent (a checkpoint path
    shows as its folder and stem, ``ppo/best``, longer where two files would look alike:
    :func:`file_labels`)."""
    labels = file_labels(opponents)
    names, others = [], iter(opponents)
    for seat in range(players):
        if seat == you:
            names.append("You")
            continue
        name = next(others)
        names.append(f"{labels.get(name, name)} (seat {seat})")
    return names


def file_labels(names: Sequence[str]) -> dict[str, str]:
    """A short label for each checkpoint path among ``names``: its last folder and stem
    (``runs/a/best.pt`` is ``a/best``; every run's best is ``best.pt``, so the stem alone
    tells none apart), with more folders while two different files would look alike."""
    files = sorted({n for n in names if "/" in n or Path(n).suffix in (".pt", ".zip")})
    parts = {name: Path(name).with_suffix("").parts for name in files}
    for depth in range(2, max((len(p) for p in parts.values()), default=0) + 1):
        labels = {name: "/".join(part[-depth:]) for name, part in parts.items()}
        if len(set(labels.values())) == len(labels):
            return labels
    return {name: "/".join(part) for name, part in parts.items()}
