"""sto_odno_env: a vectorised rules engine and RL environments for the card game 101.

The package is laid out in layers, each importing only from those below it
(docs/architecture.md):

* :mod:`sto_odno_env.game`: the rules engine (:mod:`~sto_odno_env.game.engine` steps a
  batch of games at once with numpy; the rule set, :class:`Rules`, drives it through
  lookup tables). numpy and PyYAML only.
* :mod:`sto_odno_env.views`: observations, text, pictures, the terminal screen.
* :mod:`sto_odno_env.records`: game records, replay, scenarios, the engine's contract test.
* :mod:`sto_odno_env.bots`: the policy interface, the bots, trained policies, the registry.
* :mod:`sto_odno_env.envs`: the PettingZoo AEC env ``sto_odno_v0`` (also
  ``pettingzoo.make("aec", "sto_odno_v0")``), the Gymnasium env and vector env
  (``gymnasium.make("StoOdno-v0")``, ``gymnasium.make_vec``), the stable-baselines3 VecEnv.
* :mod:`sto_odno_env.interop`: the bridges to other game APIs, the OpenSpiel game
  (``python_sto_odno``) and the TextArena env.
* :mod:`sto_odno_env.apps`: the terminal game, the benchmark and the web table; this
  package's ``record``, ``replay``, ``play``, ``bench`` and ``web`` modules run the programs
  (``python -m sto_odno_env.play``, ...).
* :mod:`sto_odno_env.tools`: what the programs share (command-line helpers, the docs'
  generated blocks) and the kit's error family: every error the kit raises for input it
  refuses is a :class:`StoOdnoError` (a ``ValueError``).

The names below are imported on first use (PEP 562), so ``import sto_odno_env`` and
``import sto_odno_env.game`` load neither gymnasium nor pettingzoo; the envs are registered
with those libraries when they are imported (:mod:`sto_odno_env.envs.register`). Importing
this package does not import torch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ._version import __version__ as __version__
from .envs.register import register_on_import

if TYPE_CHECKING:  # the names of _EXPORTS and _MODULES, for type checkers (tests/test_types.py)
    from .envs import sto_odno_v0 as sto_odno_v0
    from .envs.gym_env import StoOdnoEnv as StoOdnoEnv
    from .envs.gym_env import StoOdnoVectorEnv as StoOdnoVectorEnv
    from .envs.learner import LearnerGames as LearnerGames
    from .envs.sb3 import StoOdnoVecEnv as StoOdnoVecEnv
    from .envs.sharded import ShardedLearnerGames as ShardedLearnerGames
    from .envs.sharded import learner_games as learner_games
    from .envs.table_config import TableConfig as TableConfig
    from .game.cards import card_name as card_name
    from .game.cards import parse_card as parse_card
    from .game.cards import parse_cards as parse_cards
    from .game.engine import IllegalActionError as IllegalActionError
    from .game.engine import State as State
    from .game.engine import init as init
    from .game.engine import legal_mask as legal_mask
    from .game.engine import step as step
    from .game.rules import PRESETS as PRESETS
    from .game.rules import Rules as Rules
    from .game.rules import RulesError as RulesError
    from .game.rules import load_rules as load_rules
    from .tools.errors import StoOdnoError as StoOdnoError
    from .views.observation import LAYOUT as LAYOUT
    from .views.observation import OBS_SIZE as OBS_SIZE
    from .views.observation import ObservationView as ObservationView
    from .views.observation import observe as observe

# public name -> the module that defines it
_EXPORTS = {
    "card_name": "sto_odno_env.game.cards",
    "parse_card": "sto_odno_env.game.cards",
    "parse_cards": "sto_odno_env.game.cards",
    "IllegalActionError": "sto_odno_env.game.engine",
    "State": "sto_odno_env.game.engine",
    "init": "sto_odno_env.game.engine",
    "legal_mask": "sto_odno_env.game.engine",
    "step": "sto_odno_env.game.engine",
    "PRESETS": "sto_odno_env.game.rules",
    "Rules": "sto_odno_env.game.rules",
    "RulesError": "sto_odno_env.game.rules",
    "load_rules": "sto_odno_env.game.rules",
    "LAYOUT": "sto_odno_env.views.observation",
    "OBS_SIZE": "sto_odno_env.views.observation",
    "ObservationView": "sto_odno_env.views.observation",
    "observe": "sto_odno_env.views.observation",
    "TableConfig": "sto_odno_env.envs.table_config",
    "LearnerGames": "sto_odno_env.envs.learner",
    "ShardedLearnerGames": "sto_odno_env.envs.sharded",
    "learner_games": "sto_odno_env.envs.sharded",
    "StoOdnoEnv": "sto_odno_env.envs.gym_env",
    "StoOdnoVectorEnv": "sto_odno_env.envs.gym_env",
    "StoOdnoVecEnv": "sto_odno_env.envs.sb3",
    "StoOdnoError": "sto_odno_env.tools.errors",
}
# needs stable-baselines3 (the train extra), so ``from sto_odno_env import *`` leaves it out
_OPTIONAL = {"StoOdnoVecEnv"}
# public name -> module exported as it is (PettingZoo's versioned entry point)
_MODULES = {"sto_odno_v0": "sto_odno_env.envs.sto_odno_v0"}

__all__ = sorted({*_EXPORTS, *_MODULES} - _OPTIONAL)

register_on_import()


def __getattr__(name: str) -> object:
    if name in _MODULES:
        value = importlib.import_module(_MODULES[name])
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # the next look-up is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS, *_MODULES})
