"""Registration of the envs: ``gymnasium.make("StoOdno-v0")`` (and ``make_vec``) and
``pettingzoo.make("aec", "sto_odno_v0")``.

Registering needs the library, but importing the package must not import it: the engine
(``sto_odno_env.game``) loads with numpy and PyYAML alone. So :func:`register_on_import`,
called by the package face, registers with a library already imported at once, and with
one not yet imported the moment its import finishes (a post-import hook on
``sys.meta_path``, the mechanism of PEP 369 and ``wrapt.register_post_import_hook``). Either
way ``import sto_odno_env`` before or after ``import gymnasium`` makes the ids known.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Callable
from types import ModuleType

GYM_ID = "StoOdno-v0"
AEC_ID = "sto_odno_v0"


def register_gymnasium() -> None:
    """Registers ``StoOdno-v0`` (single env and batched vector env) with Gymnasium."""
    import gymnasium

    if GYM_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ID,
            entry_point="sto_odno_env.envs.gym_env:StoOdnoEnv",
            vector_entry_point="sto_odno_env.envs.gym_env:StoOdnoVectorEnv",
        )


def register_pettingzoo() -> None:
    """Registers the AEC env ``sto_odno_v0`` with PettingZoo (which has a registry from
    1.27 on; older releases have none, and ``from sto_odno_env import sto_odno_v0`` is
    the way in)."""
    import pettingzoo

    if not hasattr(pettingzoo, "register"):
        return
    # The registry keys specs by their normalised id ("sto_odno-v0"), so the guard asks a
    # spec for that spelling: registering twice would warn.
    spec = pettingzoo.EnvSpec(id=AEC_ID, entry_point="sto_odno_env.envs.aec:env")
    if spec.id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", AEC_ID, entry_point=spec.entry_point)


def register_on_import() -> None:
    """Registers with Gymnasium and PettingZoo now if they are imported, else as soon as
    they are."""
    when_imported("gymnasium", register_gymnasium)
    when_imported("pettingzoo", register_pettingzoo)


def when_imported(name: str, callback: Callable[[], None]) -> None:
    """Runs ``callback`` once the top-level module ``name`` has been imported: now if it
    is, or right after its import finishes. A failing callback warns; it never breaks the
    library's import."""
    if name in sys.modules:
        _run(name, callback)
    elif not any(isinstance(f, _AfterImport) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(name, callback))


def _run(name: str, callback: Callable[[], None]) -> None:
    try:
        callback()
    except Exception as error:  # a broken or foreign release of the library
        warnings.warn(
            f"sto_odno_env could not register its envs with {name}: "
            f"{type(error).__name__}: {error}",
            RuntimeWarning,
            stacklevel=2,
        )


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: on the import of ``name`` it takes itself off
    ``sys.meta_path``, asks the other finders for the module, and wraps that module's
    loader so that the callback runs after the module has executed."""

    def __init__(self, name: str, callback: Callable[[], None]):
        self.name = name
        self.callback = callback

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader, name, callback = spec.loader, self.name, self.callback
        exec_module = loader.exec_module

        def exec_then_register(module: ModuleType) -> None:
            exec_module(module)
            _run(name, callback)

        # The loader instance belongs to this one module's spec.
        loader.exec_module = exec_then_register  # type: ignore[method-assign]
        return spec
