"""What the OpenSpiel tests share: loading python_sto_odno, a random step, bots playing a
game to its end. Modules that use it skip first where pyspiel is missing."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def load(rules: str = "classic", players: int = 2, rounds: int = 0):
    """``python_sto_odno`` with these parameters."""
    import pyspiel

    return pyspiel.load_game(
        "python_sto_odno", {"rules": rules, "players": players, "rounds": rounds}
    )


def random_step(state, rng: np.random.Generator | np.random.RandomState) -> None:
    """One uniformly random legal action, or a chance outcome by its probability."""
    if state.is_chance_node():
        outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(outcomes, p=probabilities)))
    else:
        state.apply_action(int(rng.choice(state.legal_actions())))


def play_bots(game, bots: Sequence, rng: np.random.Generator | np.random.RandomState):
    """A game of ``bots`` (one per seat) to its end, chance drawn from ``rng``; every move
    is checked to be legal. The terminal state."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            random_step(state, rng)
        else:
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    return state
