"""The OpenSpiel game object: its type, parameters, bounds and observers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from ...game.cards import action_name, card_name
from ...game.rule_values import MAX_PLAYERS, MIN_PLAYERS
from ...game.rules import Rules
from ...game.tables import compile_rules
from .match import Facts, facts_of

GAME_NAME = "python_sto_odno"
# Two players, as every other entry point of the kit; rounds 0: the whole match.
DEFAULT_PARAMS = {"rules": "classic", "players": 2, "rounds": 0}
# The rounds a whole match is counted as in max_game_length: the rules put no limit on a
# match (a total of exactly 101 resets, a hand can score 0), so this is a bound on the
# matches OpenSpiel's algorithms are expected to meet, not a proof.
MAX_ROUNDS = 64


def round_length(rules: Rules) -> int:
    """The most actions (decisions and chance outcomes) one round can take.

    A round is truncated after ``max_turns`` decisions (forced ones included). Each chance
    node places one card: the round's deck places each card once at most (the cards nobody
    draws are never placed), and each reshuffled stock holds cards played in the round, one
    play per decision, plus the opening card; a steal (``empty_stock: steal``) places one
    stolen card for each card owed, at most the largest penalty per decision (their sum
    with ``stacking``, or one for a voluntary draw).
    """
    tables = compile_rules(rules)
    turns = rules.max_turns
    length = turns + tables.deck.cards + turns + 1
    if tables.steal:
        draws = tables.draw[: tables.deck.cards]
        owed = int(draws.sum()) if tables.stacking else int(draws.max())
        length += turns * max(owed, 1)
    return length


def max_game_length(rules: Rules, rounds: int) -> int:
    """:func:`round_length` times the rounds (``MAX_ROUNDS`` for a whole match), plus the
    first dealer's chance node."""
    return (rounds or MAX_ROUNDS) * round_length(rules) + 1


def utility_bounds(rules: Rules, rounds: int) -> tuple[float, float]:
    """The least and the most a seat can get: the match reward (−1..+1) and, with
    ``rounds``, minus each round's points over the target (docs/openspiel.md)."""
    if not rounds:
        return -1.0, 1.0
    tables = compile_rules(rules)
    cards = tables.deck.cards
    points = tables.points[:cards].astype(np.int64)
    bonus = tables.bonus_points[:cards].astype(np.int64)
    multiplier = int(tables.bonus_multiplier[:cards].max())
    if tables.bonus_combo:  # every bonus card in one run: the multipliers compound
        multiplier = multiplier ** int(tables.bonus_card[:cards].sum())
    most = int(np.maximum(points, 0).sum()) * max(multiplier, 1)  # all cards, multiplied
    least = int(np.minimum(bonus, 0).sum()) if tables.bonus_combo else int(min(bonus.min(), 0))
    least = min(least, int(np.minimum(points, 0).sum()))
    target = rules.target
    return -1.0 - rounds * most / target, 1.0 - rounds * least / target


def game_type(players: int = 2, rounds: int = 0) -> pyspiel.GameType:
    """OpenSpiel's description of the game (zero-sum for whole 2-player matches only: the
    round rewards are not)."""
    zero_sum = players == 2 and not rounds
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="101 (sto-odno kit)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=MIN_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(DEFAULT_PARAMS),
    )


class StoOdnoGame(pyspiel.Game):
    """101 under one rule set at one player count (``params``: ``rules``, ``players``,
    ``rounds``)."""

    def __init__(self, params: dict[str, Any] | None = None):
        params = {**DEFAULT_PARAMS, **(params or {})}
        facts = facts_of(str(params["rules"]), int(params["players"]), int(params["rounds"]))
        self.facts: Facts = facts
        self.rules: Rules = facts.rules
        self.players = facts.players
        self.rounds = facts.rounds
        self.deck = facts.deck
        low, high = utility_bounds(self.rules, self.rounds)
        zero_sum = self.players == 2 and not self.rounds
        info = pyspiel.GameInfo(
            num_distinct_actions=self.rules.num_actions,
            max_chance_outcomes=self.deck.cards,
            num_players=self.players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=max_game_length(self.rules, self.rounds),
        )
        super().__init__(game_type(self.players, self.rounds), info, params)

    def new_initial_state(self):
        """A match before its first dealer is drawn (a chance node)."""
        from .state import StoOdnoState

        return StoOdnoState(self)

    def make_py_observer(self, iig_obs_type: pyspiel.IIGObservationType | None = None, params=None):
        """The observation (default) or, with ``perfect_recall``, the information state."""
        from .observer import StoOdnoObserver

        if params:
            raise ValueError(f"python_sto_odno observers take no parameters; got {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return StoOdnoObserver(self, recall)

    def action_to_string(self, player: int, action: int) -> str:
        """The move's name out of any position: ``play Q♠``, ``order ♥``, ``draw``,
        ``pass``, ``call``; a chance outcome is a card (``card 7♦``), or a seat for the
        first dealer (a state's ``action_to_string`` says which: ``deal``, ``stock``,
        ``steal``, ``first dealer``)."""
        if player == pyspiel.PlayerId.CHANCE:
            if 0 <= action < self.deck.cards:
                return f"card {card_name(action, self.deck)}"
            return f"chance outcome {action}"
        return action_name(action, self.deck)


def load(rules: str = "classic", players: int = 2, rounds: int = 0) -> StoOdnoGame:
    """``pyspiel.load_game(GAME_NAME, {"rules": rules, "players": players, "rounds":
    rounds})``; ``rules`` a preset name or a YAML path."""
    if not isinstance(rules, str):
        raise TypeError("load takes a preset name or a YAML path; for a Rules, write it to YAML")
    return pyspiel.load_game(
        GAME_NAME, {"rules": rules, "players": int(players), "rounds": int(rounds)}
    )
