"""Every preset with every player count it allows: the parametrization of the env tests."""

from __future__ import annotations

from sto_odno_env import PRESETS, Rules

COMBOS = [
    (preset, players)
    for preset in PRESETS
    for players in range(Rules.preset(preset).players[0], Rules.preset(preset).players[1] + 1)
]
