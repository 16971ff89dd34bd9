"""Rule-based bots, batched: each scores every legal action with array code and plays the
best (ties: the lowest action id, so they are deterministic).

* :class:`RandomAgent`: uniform over legal actions.
* :class:`GreedyAgent`: the legal card worth the most points (ties: keep cover cards and
  queens), draws only when it must, orders the suit it holds the most points in.
* :class:`ExpertAgent`: see its docstring.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from sto_odno_env.cards import DRAW, NUM_ACTIONS, NUM_CARDS, NUM_SUITS, ORDER_BASE, PASS
from sto_odno_env.engine import AFTER_DRAW, COVER, PLAY, RESPOND
from sto_odno_env.policy import BasePolicy, RandomPolicy
from sto_odno_env.rules import Rules, load_rules

from .features import (
    CARD_SUIT,
    IS_QUEEN,
    CardTables,
    next_player_hand_size,
    players_in,
    view_of,
)

SUIT_OF_CARD = np.eye(NUM_SUITS, dtype=np.float64)[CARD_SUIT]  # (36, 4)


class RandomAgent(RandomPolicy):
    """Uniformly random legal actions (reads only the mask)."""

    name = "random"

    def __init__(
        self, rules: Rules | str | None = None, players: int | None = None, seed: int | None = None
    ):
        super().__init__(seed)


def _choose(scores: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The legal action with the highest score (lowest id on ties)."""
    return np.argmax(np.where(np.asarray(masks) > 0, scores, -np.inf), axis=1)


class GreedyAgent(BasePolicy):
    """Sheds the most points now (see the module docstring)."""

    name = "greedy"

    def __init__(
        self, rules: Rules | str = "classic", players: int | None = None, seed: int | None = None
    ):
        self.rules = load_rules(rules)
        self.cards = CardTables.of(self.rules)
        keep = self.cards.cover | self.cards.order_suit | IS_QUEEN
        # Points first; among equal points keep cover cards and queens for later.
        self.card_scores = self.cards.points * 4 - keep * 1.0

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        view = view_of(observations, self.rules)
        hand = view.hand
        scores = np.full((hand.shape[0], NUM_ACTIONS), -1e6)
        scores[:, :NUM_CARDS] = self.card_scores[None, :]
        suit_points = (hand * self.cards.points) @ SUIT_OF_CARD
        suit_count = hand @ SUIT_OF_CARD
        scores[:, ORDER_BASE : ORDER_BASE + NUM_SUITS] = suit_points * 4 + suit_count * 0.1
        scores[:, DRAW] = -1e5  # only when nothing can be played
        scores[:, PASS] = -2e5
        return _choose(scores, masks)


@dataclass(frozen=True)
class ExpertWeights:
    """The weights of the expert's scoring terms (see :class:`ExpertAgent`)."""

    points: float = 1.0
    finish: float = 1000.0
    keep_bonus: float = 0.6
    uncoverable: float = -12.0
    coverable: float = 6.0
    hit: float = 2.0
    hit_urgent: float = 3.0
    duel_skip: float = 2.0
    order_points: float = 1.0
    order_count: float = 4.0
    order_seen: float = 0.8
    exact_target: float = 40.0
    over_target: float = 1.0
    draw: float = -50.0
    pass_after_draw: float = -4.0


class ExpertAgent(BasePolicy):
    """A real strategy for 101, driven by the rule set's tables (so it fits every preset).

    Every legal action gets a score and the best is played. The terms (weights in
    :class:`ExpertWeights`, tuned by duplicate matches against :class:`GreedyAgent`):

    * **Shed points early.** A card scores its points: aces and tens go first.
    * **Finish.** Playing the last card scores 1000 plus its finishing bonus (a cover card
      that cannot finish the round is not a last card).
    * **Keep a queen to finish on.** A card with a finishing bonus (the queens, best Q♠)
      loses 60% of its bonus while other cards remain, so the other cards go first and the
      queen (wild, playable on anything) ends the round.
    * **Never play a cover card it cannot cover** when anything else is legal: a cover card
      no other card in hand follows scores −12; a coverable one +6 (two cards in one turn).
    * **Penalties and skips** score 2 per card drawn and per skip, ×3 when the next player
      holds one or two cards; in a duel a skip is another turn (+2), so skips chain.
    * **Order the suit that sheds most**: points and number of cards held in each suit,
      plus the cards of that suit already seen (hand and discard pile: the others are
      less likely to follow a suit that is mostly gone).
    * **Steer for exactly the target.** A play that leaves points in hand adding up to
      exactly the target (with the reset rule) scores +40; when the points in hand would
      take the total over the target, shedding points counts double.
    * **Draw only when it must** (a voluntary draw scores −50 − the mean card's points);
      accepting a stacked penalty costs the mean points of its cards; after drawing a
      playable card it passes only to keep a bonus card.
    """

    name = "expert"

    def __init__(
        self,
        rules: Rules | str = "classic",
        players: int | None = None,
        seed: int | None = None,
        **weights: float,
    ):
        self.rules = load_rules(rules)
        self.cards = CardTables.of(self.rules)
        self.mean_points = float(self.cards.points.mean())
        self.weights = replace(ExpertWeights(), **weights)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        cards, w = self.cards, self.weights
        view = view_of(observations, self.rules)
        hand = view.hand.astype(np.float64)  # (N, 36)
        n = hand.shape[0]
        hand_size = hand.sum(axis=1)
        phase = view.phase
        points = cards.points[None, :]
        hand_points = hand @ cards.points
        scores = np.full((n, NUM_ACTIONS), -1e6)

        # Shed points.
        card = np.broadcast_to(w.points * points, (n, NUM_CARDS)).copy()

        # Finishing, and keeping the bonus cards (queens) for the finish.
        last = hand_size == 1
        can_finish = ~cards.cover | cards.cover_can_finish
        finish_gain = w.finish - cards.finish_points
        card += np.where(last[:, None] & can_finish[None, :], finish_gain[None, :], 0.0)
        bonus_value = np.maximum(-cards.finish_points, 0.0)
        card -= np.where(~last[:, None], w.keep_bonus * bonus_value[None, :], 0.0)

        # Cover cards: never one it cannot cover.
        others_in_hand = hand[:, None, :] * (1.0 - np.eye(NUM_CARDS))[None, :, :]  # (N, c, d)
        coverable = (others_in_hand * cards.follows[None, :, :]).sum(axis=2) > 0  # (N, c)
        card += np.where(cards.cover[None, :], np.where(coverable, w.coverable, w.uncoverable), 0.0)

        # Hit the next player with penalties and skips; in a duel a skip is another turn.
        next_size = next_player_hand_size(view)
        urgency = np.where(next_size <= 2, w.hit_urgent, 1.0)
        hit = (cards.draw + cards.skip) * w.hit
        card += urgency[:, None] * hit[None, :]
        duel = players_in(view) == 2
        card += np.where(duel[:, None] & cards.skip[None, :], w.duel_skip, 0.0)

        # Steer for exactly the target, and away from going over it.
        own_total = view.own_total.astype(np.float64)
        after = own_total[:, None] + hand_points[:, None] - points
        if cards.reset_at_target:
            card += np.where(after == cards.target, w.exact_target, 0.0)
        card += np.where(after > cards.target, w.over_target * points, 0.0)
        scores[:, :NUM_CARDS] = card

        # Order the suit that sheds most (and that the others are short of).
        suit_points = (hand * cards.points) @ SUIT_OF_CARD
        suit_count = hand @ SUIT_OF_CARD
        seen = (hand + view.discard) @ SUIT_OF_CARD  # of the 9 cards of each suit
        scores[:, ORDER_BASE : ORDER_BASE + NUM_SUITS] = (
            w.order_points * suit_points + w.order_count * suit_count + w.order_seen * seen
        )

        # Draw and pass only when nothing better exists.
        draw_score = np.full(n, w.draw - self.mean_points)
        draw_score = np.where(phase == COVER, 0.0, draw_score)  # the only way to cover
        draw_score = np.where(phase == RESPOND, -self.mean_points * view.pending, draw_score)
        scores[:, DRAW] = draw_score
        pass_score = np.where(phase == AFTER_DRAW, w.pass_after_draw, -10.0)
        pass_score = np.where(phase == PLAY, -30.0, pass_score)
        scores[:, PASS] = pass_score
        return _choose(scores, masks)


__all__ = ["ExpertAgent", "ExpertWeights", "GreedyAgent", "RandomAgent"]
