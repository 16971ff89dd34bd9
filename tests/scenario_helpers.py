"""Helpers shared by the scenario tests (``test_scenarios_*.py``)."""

from __future__ import annotations

import numpy as np

from sto_odno_env.game import engine
from sto_odno_env.game.cards import DRAW as DRAW  # the classic ids the scenarios play
from sto_odno_env.game.cards import PASS as PASS
from sto_odno_env.game.rules import Rules
from sto_odno_env.records.scenario import Game, cards_of


def card(name: str) -> int:
    return cards_of(name)[0]


def ids(cards: str) -> list[int]:
    return cards_of(cards)


def held(game: Game, seat: int) -> set[str]:
    return set(game.hand(seat))


def plays(cards: str, *extra: str) -> set[str]:
    """The legal-action names for playing each of ``cards``, plus ``extra`` actions."""
    return {f"play {c}" for c in cards.split()} | set(extra)


def actions(game: Game, since: int = 0) -> list[tuple[int, int, bool]]:
    """(player, action, forced) of the action events from the ``since``-th event on."""
    return [
        (e["player"], e["action"], e["forced"])
        for e in game.events[since:]
        if e["type"] == "action"
    ]


def with_effect(preset: str, key: str, **effect) -> dict:
    """The preset's effects with one entry replaced (a rule switch of docs/rules.md §11)."""
    effects = {k: vars(v) for k, v in Rules.preset(preset).effects.items()}
    effects[key] = effect
    return effects


def step(game: Game, action: int | str) -> list[float]:
    """One decision through ``engine.step``; returns the match rewards it reports."""
    action = card(action) if isinstance(action, str) else action
    _, rewards, _ = engine.step(
        game.state, np.array([action]), chance=game.chance, trace=game.trace
    )
    return [round(r, 6) for r in rewards[0].tolist()]


def preload(game: Game, totals: list[int]) -> None:
    """Totals as if earlier rounds had scored them."""
    game.state.totals[0] = totals


def round_end(game: Game) -> tuple:
    """(finisher, last card, points, totals, out) of the game's last round end."""
    end = game.last("round_end")
    return end["finisher"], end["last_card"], end["points"], end["totals"], end["out"]


def duel(rules: str | Rules, last: str, held: str = "A♦", drawn: str = "K♥", **changes) -> Game:
    """Seat 0 plays 9♣ onto 10♣; seat 1 (``held``, A♦ by default) is forced to draw
    ``drawn`` (K♥) and pass; seat 0 is left with ``last``, which ends the round when played.
    With the defaults seat 1 then holds A♦ K♥ (15 points in classic)."""
    return Game(
        rules,
        hand_size=2,
        dealer=1,
        hands={0: f"9♣ {last}", 1: held},
        opening="10♣",
        stock=f"{drawn} J♥ 6♥",
        **changes,
    )
