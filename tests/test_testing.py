"""sto_odno_env.records.testing.api_test: a variant author's one-call check of the engine."""

from __future__ import annotations

import pytest

from sto_odno_env.game.core import decisions
from sto_odno_env.game.rules import Rules
from sto_odno_env.game.tables import CARD_BIT
from sto_odno_env.records import testing


@pytest.mark.parametrize(
    ("rules", "players"),
    [
        (Rules.preset("classic"), 2),
        (Rules.preset("classic").replace(stacking=True, empty_stock="steal", target=40), 3),
        pytest.param(
            Rules.preset("ukrainian").replace(last_card_effects=True, reshuffle="flip"),
            4,
            marks=pytest.mark.slow,
        ),
    ],
)
def test_api_test_passes_on_the_engine(rules: Rules, players: int) -> None:
    testing.api_test(rules, players, batch=4, steps=60)


def test_api_test_catches_a_card_in_two_places(monkeypatch: pytest.MonkeyPatch) -> None:
    real = decisions.play_cards

    def play_and_keep(state, games, cards, chance, trace):  # a broken rule: seat 0 keeps a copy
        real(state, games, cards, chance, trace)
        state.hand[games, 0] |= CARD_BIT[cards]

    monkeypatch.setattr(decisions, "play_cards", play_and_keep)
    with pytest.raises(AssertionError, match="cards in hands, stock and pile"):
        testing.api_test("classic", 2, batch=2, steps=20)
