"""The engine state's arrays as named copies, and back: what a resumed run saves of its
games (:meth:`LearnerGames.get_state <sto_odno_env.envs.learner.LearnerGames.get_state>`,
the self-play trainer)."""

from __future__ import annotations

import numpy as np

from ..game import engine


def engine_arrays(state: engine.State) -> dict[str, np.ndarray]:
    """Copies of the engine state's arrays, named ``engine.<field>`` (for saving a run)."""
    return {
        f"engine.{name}": value.copy()
        for name, value in vars(state).items()
        if isinstance(value, np.ndarray)
    }


def restore_engine_arrays(state: engine.State, arrays: dict[str, np.ndarray]) -> None:
    """Write the ``engine.<field>`` entries of ``arrays`` (from :func:`engine_arrays`) back
    into ``state``; other entries are left to the caller. An array of another shape or
    type (games saved with other settings) raises ValueError naming the field."""
    for name, value in arrays.items():
        if name.startswith("engine."):
            current = getattr(state, name[len("engine.") :])
            if current.shape != value.shape or current.dtype != value.dtype:
                raise ValueError(
                    f"saved games do not fit: {name} is {value.dtype}{value.shape}, "
                    f"these games have {current.dtype}{current.shape}"
                )
            current[...] = value
