"""Training: ``python train/ppo.py`` (masked self-play PPO with a league),
``python train/rllib_ppo.py`` (the same on Ray RLlib) and ``python train/sb3_ppo.py``
(sb3-contrib's MaskablePPO), on one run harness (``train/run/session.py``). See docs/training.md.

The package is installed with the kit (``pip install -e .``), so the scripts import it
without touching ``sys.path``. Importing it defers torch to its first use
(:func:`deferred_import`): a trainer checks its command line and config first, so a
mistake is an error within a second instead of after torch's seconds of loading.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any


class _Deferred(types.ModuleType):
    """A stand-in for a module that imports the module on its first use."""

    def __getattr__(self, attribute: str) -> Any:
        # called only for what the stand-in lacks: every attribute until the import
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        module = importlib.import_module(name)
        self.__dict__.update(module.__dict__)  # later look-ups find them without this call
        return getattr(module, attribute)


def deferred_import(name: str) -> types.ModuleType:
    """The module ``name``, imported on its first use: until then ``import name`` anywhere
    gives a stand-in (in ``sys.modules``) whose first attribute look-up imports the module
    (and replaces the stand-in there). A module already imported is returned as it is;
    one that is not installed raises ``ModuleNotFoundError`` naming the extra."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None:
        from sto_odno_env.tools.cli import python_command  # the pip of this interpreter

        raise ModuleNotFoundError(
            f"the trainers need {name}: {python_command()} -m pip install -e '.[train]'"
        )
    stand_in = _Deferred(name)
    stand_in.__spec__ = spec  # not being initialised: `import name` returns the stand-in
    sys.modules[name] = stand_in
    return stand_in


deferred_import("torch")
