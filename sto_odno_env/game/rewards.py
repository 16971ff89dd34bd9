"""Reward modes other than the match reward, shared by the AEC env, the learner's table
and the search bots' rollouts valued by a policy's critic."""

from __future__ import annotations

import numpy as np


def first_place(paid: np.ndarray, players: int) -> np.ndarray:
    """``reward="first"``: what a player whose place was just decided gets instead of its
    match reward ``paid`` (+1 for the best place to −1 for the worst, ties shared): +1 for
    first place alone, −1/(P−1) for any other place (a tie for first included), so the
    table's rewards still sum to zero and only winning the match pays."""
    paid = np.asarray(paid, dtype=np.float64)
    return np.where(paid >= 1.0 - 1e-6, 1.0, -1.0 / (players - 1))


def pay_first_place(
    paid: np.ndarray,
    seats: np.ndarray,
    in_before: np.ndarray | int,
    in_after: np.ndarray | int,
    terminated: np.ndarray | bool,
    players: int,
) -> np.ndarray:
    """One step's rewards ``paid`` to ``seats`` under ``reward="first"``: each seat is paid
    its place once, in the step that puts it out or ends the match with it still in (a
    middle place pays 0, so the payment alone cannot tell); that payment becomes
    :func:`first_place`'s. ``in_before``/``in_after``: the ``in_match`` bits around the step."""
    was_in = (np.asarray(in_before, np.intp) >> seats) & 1 == 1
    now_in = (np.asarray(in_after, np.intp) >> seats) & 1 == 1
    decided = was_in & (~now_in | terminated)
    return np.where(decided, first_place(paid, players), paid)
