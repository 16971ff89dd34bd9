"""sto_odno_env: a vectorised rules engine and RL environments for the card game 101.

The engine (:mod:`sto_odno_env.engine`) steps a batch of games at once with numpy; the
rule set (:class:`Rules`) drives it through lookup tables. Importing this package does not
import torch.
"""

from .cards import card_name, parse_card, parse_cards
from .engine import IllegalActionError, State, init, legal_mask, step
from .rules import PRESETS, Rules, RulesError, load_rules

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "IllegalActionError",
    "Rules",
    "RulesError",
    "State",
    "card_name",
    "init",
    "legal_mask",
    "load_rules",
    "parse_card",
    "parse_cards",
    "step",
]
