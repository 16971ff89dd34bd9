"""Every preset with every player count it allows: the parametrization of the env tests."""

from __future__ import annotations

import pytest

from sto_odno_env import PRESETS, Rules

COMBOS = [
    (preset, players)
    for preset in PRESETS
    for players in range(Rules.preset(preset).players[0], Rules.preset(preset).players[1] + 1)
]

# The quick tier keeps one player count per preset (2 to 6 players, each once); the other
# combinations are marked slow.
QUICK = {"classic": 2, "yard": 3, "nines": 4, "encyclopedia": 5, "ukrainian": 6, "micro": 2}
COMBO_PARAMS = [
    pytest.param(preset, players, marks=[] if QUICK[preset] == players else [pytest.mark.slow])
    for preset, players in COMBOS
]
