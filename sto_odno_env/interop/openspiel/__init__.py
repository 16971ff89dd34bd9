"""101 as an OpenSpiel game: ``pyspiel.load_game("python_sto_odno", {"rules": R, "players": P,
"rounds": N})``.

Importing this package registers the game with ``pyspiel`` (the ``openspiel`` extra installs
it). ``rules`` is a preset name or a rule-set YAML path, ``players`` any count the rule set
allows (2 by default), ``rounds`` the rounds the game lasts (0, the default: the whole
match). The kit's engine plays every rule; this package only asks it. Its pieces:

- :mod:`.chance`: every random event is an explicit chance node with its exact
  distribution: the first dealer, uniform over the seats; a round's deck one card at a
  time *as it leaves the deck*, uniform over the cards not placed yet (the dealt cards when
  the round is dealt, a stock card when someone draws it: every order of the deck has
  probability ``1/N!``); a reshuffled stock the same way; a steal, uniform over the
  victim's cards. A node with a single outcome is applied without a chance node. When the
  engine reaches a card no chance action placed yet, its step (run on a copy) is abandoned,
  the state becomes a chance node for that card, and the step is run again with the card
  placed: the engine stays the one rules path.
- :mod:`.match`: what a state holds (engine states, chance events, decisions, actions);
  a clone shares everything that never changes; serialisation is the parameters and the
  actions, played again when deserialised.
- :mod:`.game`, :mod:`.state`, :mod:`.observer`: OpenSpiel's Game, State and observer. The
  utility is the kit's match reward (+1 for the winner to −1 for the last place, linear in
  the place, ties shared; a truncated match pays nothing to those still in); with
  ``rounds`` it is the kit's round reward (``reward="round"``): each seat also gets minus
  its points over the target at every round's end, and the game ends with the last round.
- :mod:`.resample`: ``state.resample_from_infostate(player, sampler)`` for ISMCTS.
- :mod:`.rollouts`: ``EngineRollouts``, an evaluator for OpenSpiel's MCTS and ISMCTS whose
  rollouts the engine plays (all of a leaf's at once; uniform or a kit policy).
- :mod:`.bots`: ``PolicyBot``, a kit policy as a ``pyspiel.Bot`` (``evaluate_bots``).
- :mod:`.records`: kit records from states and states from kit records.
"""

from __future__ import annotations

import pyspiel

from .bots import PolicyBot
from .chance import ChanceEvent, LazyChance, Need, RoundsOver, fill_stock
from .game import (
    DEFAULT_PARAMS,
    GAME_NAME,
    MAX_ROUNDS,
    StoOdnoGame,
    game_type,
    load,
    max_game_length,
    round_length,
    utility_bounds,
)
from .match import Decision, Facts, Match, facts_of, replay
from .observer import StoOdnoObserver
from .records import record_events, record_outcomes, state_from_record, write_record
from .resample import hidden_origins, resample
from .rollouts import EngineRollouts, rollout_values
from .state import StoOdnoState
from .text import seat_text

if GAME_NAME not in pyspiel.registered_names():
    pyspiel.register_game(game_type(), StoOdnoGame)

__all__ = [
    "DEFAULT_PARAMS",
    "GAME_NAME",
    "MAX_ROUNDS",
    "ChanceEvent",
    "Decision",
    "EngineRollouts",
    "Facts",
    "LazyChance",
    "Match",
    "Need",
    "PolicyBot",
    "RoundsOver",
    "StoOdnoGame",
    "StoOdnoObserver",
    "StoOdnoState",
    "facts_of",
    "fill_stock",
    "game_type",
    "hidden_origins",
    "load",
    "max_game_length",
    "record_events",
    "record_outcomes",
    "replay",
    "resample",
    "rollout_values",
    "round_length",
    "seat_text",
    "state_from_record",
    "utility_bounds",
    "write_record",
]
