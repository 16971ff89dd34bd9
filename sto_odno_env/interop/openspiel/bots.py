"""The kit's agents as OpenSpiel bots: ``PolicyBot`` seats a kit policy wherever OpenSpiel
takes a ``pyspiel.Bot`` (``evaluate_bots``, its own game loops), beside MCTS or ISMCTS."""

from __future__ import annotations

import numpy as np
import pyspiel

from ...tools.errors import StoOdnoError
from ...views.observation import ActingPolicy, observe_one
from .state import StoOdnoState


class PolicyBot(pyspiel.Bot):
    """A kit policy (``agents.load(...)``, any object with the kit's ``act(observations,
    masks)``) deciding for seat ``player_id`` from that seat's observation, as the kit's
    envs give it. It keeps no state between decisions, so ``restart_at`` and
    ``inform_action`` have nothing to do."""

    def __init__(self, player_id: int, policy: ActingPolicy):
        pyspiel.Bot.__init__(self)
        self.player_id = player_id
        self.policy = policy

    def step(self, state: pyspiel.State) -> int:
        """The policy's action for the seat to act (which must be this bot's)."""
        if not isinstance(state, StoOdnoState):
            raise StoOdnoError(f"PolicyBot plays python_sto_odno states, got {state.get_game()}")
        seat = state.current_player()
        if seat != self.player_id:
            raise StoOdnoError(
                f"PolicyBot for seat {self.player_id} asked to act for seat {seat}; "
                "seat one bot per player"
            )
        view = state.engine_state
        assert view is not None  # a decision node has its engine state
        mask = np.zeros((1, view.tables.num_actions), dtype=np.int8)
        mask[0, list(state.legal_actions())] = 1
        observations = (
            observe_one(view, seat)[None]
            if getattr(self.policy, "needs_observation", True)
            else None
        )
        # None only for a policy that reads the masks alone (needs_observation False).
        return int(self.policy.act(observations, mask)[0])  # type: ignore[arg-type]

    def restart_at(self, state: pyspiel.State) -> None:
        """Nothing to reset: the bot decides from the state alone."""

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Nothing to track: the bot decides from the state alone."""
