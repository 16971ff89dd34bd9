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
from typing import Any

from ._version import __version__ as __version__
from .envs.register import register_on_import

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


def __getattr__(name: str) -> Any:
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
