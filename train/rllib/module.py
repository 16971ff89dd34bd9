"""RLlib's RLModule for the kit's network (``train/rllib_ppo.py``): :class:`MaskedMLP`.

The actor is the kit's policy network exactly (``pi``: ``build_network(obs, hidden,
actions)``), so a checkpoint exports to a policy file without conversion; the critic is
``vf``; illegal actions' logits are -1e9 (RLlib's action-masking convention: a Dict
observation of :data:`KEYS`).

The class is built on first use (:func:`module_class`), so importing this module needs no
Ray; the module-level ``__getattr__`` makes ``train.rllib.module.MaskedMLP`` resolve when a
pickled reference to it is loaded on an env runner or from a checkpoint.
"""

from __future__ import annotations

import sys

from train.ppo_parts.masked import make_networks, masked_logits

# Checkpoints written before train/rllib/ existed pickled the class as
# train.rllib_module.MaskedMLP: that name must still find this module when one is restored.
sys.modules.setdefault("train.rllib_module", sys.modules[__name__])

KEYS = ("observations", "action_mask")  # RLlib's action-masking convention


def module_class() -> type:
    """:class:`MaskedMLP`, built once (Ray's RLModule classes are imported here)."""
    if "MaskedMLP" in globals():
        return globals()["MaskedMLP"]
    from gymnasium import spaces
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis import ValueFunctionAPI
    from ray.rllib.core.rl_module.torch import TorchRLModule

    class MaskedMLP(TorchRLModule, ValueFunctionAPI):
        """The kit's actor (``pi``) and critic (``vf``) on the Dict observation, sized by
        its spaces; illegal actions' logits are -1e9."""

        def setup(self):
            # RLlib types the spaces and the model config as optional; the runner always
            # sets them before setup (a Dict observation, a Discrete action space).
            observations, actions, model = (
                self.observation_space,
                self.action_space,
                self.model_config,
            )
            if not isinstance(observations, spaces.Dict) or not isinstance(
                actions, spaces.Discrete
            ):
                raise TypeError(
                    "MaskedMLP needs a Dict observation and a Discrete action space, got "
                    f"{observations!r}, {actions!r}"
                )
            if not isinstance(model, dict):
                raise TypeError(f"MaskedMLP needs a model_config dict with 'hidden', got {model!r}")
            shape = observations[KEYS[0]].shape
            if not shape:
                raise TypeError(f"MaskedMLP needs a vector observation, got {observations!r}")
            size = int(shape[0])
            self.pi, self.vf = make_networks(size, list(model["hidden"]), int(actions.n))

        def _forward(self, batch, **kwargs):
            observations = batch[Columns.OBS]
            logits = self.pi(observations[KEYS[0]])
            legal = observations[KEYS[1]] > 0
            return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, legal)}

        def compute_values(self, batch, embeddings=None):
            return self.vf(batch[Columns.OBS][KEYS[0]]).squeeze(-1)

    # pickled as train.rllib.module.MaskedMLP, which __getattr__ below resolves
    MaskedMLP.__module__ = __name__
    MaskedMLP.__qualname__ = "MaskedMLP"
    globals()["MaskedMLP"] = MaskedMLP
    return MaskedMLP


def __getattr__(name: str) -> type:  # pickled MaskedMLP references resolve on the runners
    if name == "MaskedMLP":
        return module_class()
    raise AttributeError(name)
