"""sto_odno_env: a vectorised rules engine and RL environments for the card game 101.

* :mod:`sto_odno_env.game.engine` steps a batch of games at once with numpy; the rule set
  (:class:`Rules`) drives it through lookup tables.
* :mod:`sto_odno_env.envs.aec` is the PettingZoo AEC env ``sto_odno_v0`` (also
  ``pettingzoo.make("aec", "sto_odno_v0")``).
* :mod:`sto_odno_env.envs.gym_env` has the Gymnasium single-agent env
  (``gymnasium.make("StoOdno-v0")``) and the batched vector env;
  :mod:`sto_odno_env.envs.sb3` the stable-baselines3 VecEnv.

Importing this package does not import torch.
"""

import gymnasium as _gymnasium
import pettingzoo as _pettingzoo

from ._version import __version__ as __version__
from .envs import sto_odno_v0
from .game.cards import card_name, parse_card, parse_cards
from .game.engine import IllegalActionError, State, init, legal_mask, step
from .game.rules import PRESETS, Rules, RulesError, load_rules
from .views.observation import LAYOUT, OBS_SIZE, ObservationView, observe

if "StoOdno-v0" not in _gymnasium.registry:
    _gymnasium.register(
        id="StoOdno-v0",
        entry_point="sto_odno_env.envs.gym_env:StoOdnoEnv",
        vector_entry_point="sto_odno_env.envs.gym_env:StoOdnoVectorEnv",
    )
if hasattr(_pettingzoo, "register"):  # PettingZoo >= 1.27
    # The registry keys specs by their normalised id ("sto_odno-v0"), so the guard asks a
    # spec for that spelling: a re-import or reload must not register (and warn) again.
    _spec = _pettingzoo.EnvSpec(id="sto_odno_v0", entry_point="sto_odno_env.envs.aec:env")
    if _spec.id not in _pettingzoo.aec_registry:
        _pettingzoo.register("aec", "sto_odno_v0", entry_point=_spec.entry_point)
    del _spec

__all__ = [
    "LAYOUT",
    "OBS_SIZE",
    "PRESETS",
    "IllegalActionError",
    "ObservationView",
    "Rules",
    "RulesError",
    "State",
    "card_name",
    "init",
    "legal_mask",
    "load_rules",
    "observe",
    "parse_card",
    "parse_cards",
    "step",
    "sto_odno_v0",
]
