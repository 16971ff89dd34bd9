"""PettingZoo-style versioned entry point: ``from sto_odno_env import sto_odno_v0``."""

from .aec import ENV_NAME, env, raw_env

__all__ = ["ENV_NAME", "env", "raw_env"]
