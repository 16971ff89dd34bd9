"""Where ``train/rllib_ppo.py``'s Ray runs: this machine (``ray.init()``), or a running
cluster at ``--address`` (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``), which is refused
within seconds, in one line, when nothing answers there. On a cluster the checkout is the
job's working directory (without :data:`RUNTIME_EXCLUDES`), so every node imports the same
kit.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from types import ModuleType

from sto_odno_env.tools.cli import require
from train.config_keys import ConfigError

REPO = Path(__file__).resolve().parent.parent
RUNTIME_EXCLUDES = [".venv", ".git", "runs", "out", "notebooks", "*.egg-info", "__pycache__"]


class ClusterError(ConfigError):
    """No Ray cluster answers at the address given."""


def ray_module() -> ModuleType:
    """``ray``, or a :class:`ConfigError` naming the extras that install it."""
    return require("ray", "train/rllib_ppo.py needs Ray RLlib", "train,dist", ConfigError)


def connect(address: str | None, env_runners: int, gpus: int) -> None:
    """``ray.init``: local by default; an existing cluster at ``address``, refused within
    seconds (:class:`ClusterError`) when nothing answers there."""
    ray = ray_module()
    quiet = {"logging_level": "ERROR", "log_to_driver": True}
    if address is None:
        ray.init(
            address="local",
            num_cpus=max(os.cpu_count() or 1, env_runners + 1),
            num_gpus=gpus or None,
            include_dashboard=False,
            **quiet,
        )
        return
    _check_reachable(address)
    runtime_env = {"working_dir": str(REPO), "excludes": RUNTIME_EXCLUDES}
    try:
        ray.init(address=address, runtime_env=runtime_env, **quiet)
    except Exception as error:  # ConnectionError, RuntimeError, ...: Ray's own message
        raise ClusterError(
            f"--address {address}: no Ray cluster could be joined ({type(error).__name__}: "
            f"{error}); start one with `ray start --head` (docs/training.md)"
        ) from None


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """A TCP connection to ``HOST:PORT`` / ``ray://HOST:PORT`` (``auto`` is Ray's to find)."""
    if address == "auto":
        return
    where = address.removeprefix("ray://")
    host, sep, port = where.rpartition(":")
    if not sep or not port.isdigit():
        raise ClusterError(
            f"--address {address!r} is not allowed; allowed: auto, HOST:PORT or ray://HOST:PORT"
        )
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as error:
        raise ClusterError(
            f"--address {address}: nothing answers at {host}:{port} ({error}); start a "
            "cluster there with `ray start --head` or give --address auto on one of its "
            "nodes (docs/training.md)"
        ) from None
