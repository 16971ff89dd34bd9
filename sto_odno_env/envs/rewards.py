"""Reward modes other than the match reward, shared by the AEC env and the learner's table."""

from __future__ import annotations

import numpy as np


def first_place(paid: np.ndarray, players: int) -> np.ndarray:
    """``reward="first"``: what a player whose place was just decided gets instead of its
    match reward ``paid`` (+1 for the best place to −1 for the worst, ties shared): +1 for
    first place alone, −1/(P−1) for any other place (a tie for first included), so the
    table's rewards still sum to zero and only winning the match pays."""
    paid = np.asarray(paid, dtype=np.float64)
    return np.where(paid >= 1.0 - 1e-6, 1.0, -1.0 / (players - 1))
