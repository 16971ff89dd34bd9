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

from ..game.cards import (
    PHASE_AFTER_DRAW,
    PHASE_COVER,
    PHASE_PLAY,
    PHASE_RESPOND,
)
from ..game.rules import Rules, load_rules
from .features import (
    CardTables,
    hand_bits,
    next_player_hand_size,
    players_in,
    view_of,
)
from .policy import BasePolicy, RandomPolicy


class RandomAgent(RandomPolicy):
    """Uniformly random legal actions (reads only the mask)."""

    name = "random"

    def __init__(
        self, rules: Rules | str | None = None, players: int | None = None, seed: int | None = None
    ):
        super().__init__(seed)


def _width(masks: np.ndarray, rules: Rules, bot: str = "this bot") -> int:
    """The number of actions of the masks' rule set: the deck's plays, orders, draw and pass
    (42 for 36 cards, 58 for 52), or one more with last_card_call."""
    deck = rules.deck_spec
    width = np.shape(masks)[-1]
    if width not in (deck.actions(), deck.actions(call=True)):
        raise ValueError(
            f"masks have {width} actions; {bot} is set up for rules {rules.name!r} with the "
            f"{deck.cards}-card deck ({deck.actions()} actions, or {deck.actions(call=True)} "
            "with last_card_call)"
        )
    return width


def _always_call(scores: np.ndarray, deck) -> None:
    """In a CALL decision (last_card_call, docs/rules.md §12) the bots always call: calling
    costs nothing, passing draws the call penalty. Outside CALL the call is never legal."""
    if scores.shape[1] > deck.call:
        scores[:, deck.call] = 1e7


def _choose(scores: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The legal action with the highest score (lowest id on ties)."""
    scores[np.asarray(masks) == 0] = -np.inf
    return np.argmax(scores, axis=1)


class GreedyAgent(BasePolicy):
    """Sheds the most points now (see the module docstring)."""

    name = "greedy"

    def __init__(
        self, rules: Rules | str = "classic", players: int | None = None, seed: int | None = None
    ):
        self.rules = load_rules(rules)
        self.cards = CardTables.of(self.rules)
        self.deck = self.cards.deck
        self.suit_of_card = np.eye(self.deck.suits, dtype=np.float64)[self.cards.suit]  # (N, S)
        keep = self.cards.cover | self.cards.order_suit | self.cards.is_queen
        # Points first; among equal points keep cover cards and queens for later.
        self.card_scores = self.cards.points * 4 - keep * 1.0

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        deck = self.deck
        width = _width(masks, self.rules, f"bot {self.name!r}")
        view = view_of(observations, self.rules)
        hand = view.hand
        scores = np.full((hand.shape[0], width), -1e6)
        scores[:, : deck.cards] = self.card_scores[None, :]
        suit_points = (hand * self.cards.points) @ self.suit_of_card
        suit_count = hand @ self.suit_of_card
        scores[:, deck.order_base : deck.draw] = suit_points * 4 + suit_count * 0.1
        scores[:, deck.draw] = -1e5  # only when nothing can be played
        scores[:, deck.pass_] = -2e5
        _always_call(scores, deck)
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
      less likely to follow a suit that is mostly gone); never a suit it holds none of.
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
        self.deck = self.cards.deck
        self._suit_of_card = np.eye(self.deck.suits, dtype=np.float32)[self.cards.suit]  # (N, S)
        self.mean_points = float(self.cards.points.mean())
        self.weights = w = replace(ExpertWeights(), **weights)
        cards = self.cards
        # Per-card terms that do not depend on the situation, for the last card and others.
        hit = (cards.draw + cards.skip) * w.hit
        base = w.points * cards.points + hit
        can_finish = ~cards.cover | cards.cover_can_finish
        bonus_value = np.maximum(-cards.finish_points, 0.0)
        self._card_last = (base + np.where(can_finish, w.finish - cards.finish_points, 0.0)).astype(
            np.float32
        )
        self._card_other = (base - w.keep_bonus * bonus_value).astype(np.float32)
        self._urgent_extra = ((w.hit_urgent - 1.0) * hit).astype(np.float32)
        self._duel_extra = (w.duel_skip * cards.skip).astype(np.float32)
        self._cover_cards = np.flatnonzero(cards.cover)
        self._points32 = cards.points.astype(np.float32)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        cards, w, deck = self.cards, self.weights, self.deck
        width = _width(masks, self.rules, f"bot {self.name!r}")
        view = view_of(observations, self.rules)
        hand_mask = view.hand
        hand = hand_mask.astype(np.float32)  # (N, 36), or (N, 52)
        n = hand.shape[0]
        hand_size = hand.sum(axis=1)
        phase = view.phase
        hand_points = hand @ self._points32

        # Shed points; finish (with the bonus) on the last card, else keep bonus cards.
        card = np.where((hand_size == 1)[:, None], self._card_last, self._card_other)

        # Hit the next player harder when it is low on cards; in a duel skips chain.
        urgent = np.flatnonzero(next_player_hand_size(view) <= 2)
        card[urgent] += self._urgent_extra
        duel = np.flatnonzero(players_in(view) == 2)
        card[duel] += self._duel_extra

        # Cover cards: only one that another card in hand can cover.
        if self._cover_cards.size:
            bits = hand_bits(hand_mask)
            covers = self._cover_cards
            rest = bits[:, None] & ~cards.card_bit[covers][None, :]
            coverable = (rest & cards.follow_bits[covers][None, :]) != 0
            card[:, covers] += np.where(coverable, w.coverable, w.uncoverable)

        # Steer for exactly the target, and away from going over it (rows near it only).
        own_total = view.own_total.astype(np.float32)
        near = np.flatnonzero(own_total + hand_points > cards.target - self._points32.max())
        if near.size:
            after = (own_total[near] + hand_points[near])[:, None] - self._points32[None, :]
            if cards.reset_at_target:
                card[near] += np.where(after == cards.target, w.exact_target, 0.0).astype(
                    np.float32
                )
            card[near] += np.where(
                after > cards.target, w.over_target * self._points32, 0.0
            ).astype(np.float32)

        scores = np.empty((n, width), dtype=np.float32)
        scores[:, : deck.cards] = card
        # Order the suit that sheds most (and that the others are short of).
        suit_of_card = self._suit_of_card
        suit_points = (hand * self._points32) @ suit_of_card
        suit_count = hand @ suit_of_card
        seen = (hand + view.discard) @ suit_of_card  # of the 9 (or 13) cards of each suit
        # A suit it holds nothing of is never ordered (it could not follow it itself).
        scores[:, deck.order_base : deck.draw] = (
            w.order_points * suit_points
            + w.order_count * suit_count
            + w.order_seen * seen
            - np.where(suit_count > 0, 0.0, 1000.0)
        )
        # Draw and pass only when nothing better exists.
        draw_score = np.full(n, w.draw - self.mean_points, dtype=np.float32)
        draw_score[phase == PHASE_COVER] = 0.0  # the only way to cover
        respond = phase == PHASE_RESPOND
        draw_score[respond] = -self.mean_points * view.pending[respond]
        scores[:, deck.draw] = draw_score
        pass_score = np.full(n, -10.0, dtype=np.float32)
        pass_score[phase == PHASE_AFTER_DRAW] = w.pass_after_draw
        pass_score[phase == PHASE_PLAY] = -30.0
        scores[:, deck.pass_] = pass_score
        _always_call(scores, deck)
        return _choose(scores, masks)


__all__ = ["ExpertAgent", "ExpertWeights", "GreedyAgent", "RandomAgent"]
