"""Policy and value networks, and the categorical distribution over legal actions only.

Illegal actions get a logit of ``ILLEGAL_LOGIT``: their probability is exactly 0 in
float32, so they are never sampled, add nothing to the entropy and get no gradient.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch

from sto_odno_env.bots.checkpoint import build_network

if TYPE_CHECKING:
    from torch import nn

ILLEGAL_LOGIT = -1e9


def make_networks(
    obs_size: int, hidden: list[int], num_actions: int
) -> tuple[nn.Module, nn.Module]:
    """The actor (observation -> action logits; the network of a policy file) and the critic
    (observation -> value), with CleanRL's orthogonal initialisation."""
    actor = build_network(obs_size, hidden, num_actions)
    critic = build_network(obs_size, hidden, 1)
    for network, last_gain in ((actor, 0.01), (critic, 1.0)):
        linears = [layer for layer in network if isinstance(layer, torch.nn.Linear)]
        for index, layer in enumerate(linears):
            gain = last_gain if index == len(linears) - 1 else math.sqrt(2)
            torch.nn.init.orthogonal_(layer.weight, gain)
            torch.nn.init.zeros_(layer.bias)
    return actor, critic


def widens(hidden: list[int], widths: list[int]) -> bool:
    """Whether an MLP of ``hidden`` widths loads into one of ``widths`` by
    :func:`widen_into`: the same depth, and no layer narrower."""
    return len(hidden) == len(widths) and all(
        old <= new for old, new in zip(hidden, widths, strict=True)
    )


def widen_into(network: nn.Module, state_dict: dict[str, torch.Tensor]) -> None:
    """Load the weights of a narrower MLP of the same depth into ``network``, keeping its
    function exactly: each old unit keeps its weights and gets zero weight from the new
    units below it, and the next layer (the head too) gets zero weight from the new
    units, so they start at their fresh initialisation and change nothing until PPO moves
    their outgoing weights (Net2Net's function-preserving widening, zero-initialised)."""
    with torch.no_grad():
        for name, layer in network.named_children():
            if not isinstance(layer, torch.nn.Linear):
                continue
            weight, bias = state_dict[f"{name}.weight"], state_dict[f"{name}.bias"]
            rows, columns = weight.shape
            layer.weight[:rows, :columns] = weight
            layer.weight[:rows, columns:] = 0.0
            layer.bias[:rows] = bias
            layer.bias[rows:] = 0.0


def masked_logits(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """``logits`` with the illegal actions (``masks`` False) pushed to ``ILLEGAL_LOGIT``."""
    return torch.where(masks, logits, torch.full_like(logits, ILLEGAL_LOGIT))


def log_probs(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Log-probabilities of every action under the masked distribution."""
    return torch.log_softmax(masked_logits(logits, masks), dim=-1)


def sample(
    logits: torch.Tensor, masks: torch.Tensor, generator: torch.Generator | None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Actions drawn from the masked distribution (Gumbel-max, reproducible with
    ``generator``; None: torch's default one) and their log-probabilities."""
    logp = log_probs(logits, masks)
    uniform = torch.rand(logp.shape, generator=generator, device=logp.device)
    gumbel = -torch.log(-torch.log(uniform.clamp_(1e-20, 1.0 - 1e-7)))
    actions = torch.argmax(torch.where(masks, logp + gumbel, torch.full_like(logp, -math.inf)), 1)
    return actions, logp.gather(1, actions[:, None]).squeeze(1)


def entropy(logp: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Entropy of the masked distribution, summed over the legal actions only."""
    return -(torch.where(masks, logp.exp() * logp, torch.zeros_like(logp))).sum(-1)
