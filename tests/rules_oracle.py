"""docs/rules.md §2, §7 and the §12 scoring switches written out plainly, independent of the
engine's tables (a test oracle)."""

from __future__ import annotations

import itertools

from sto_odno_env.game.cards import RANK_NAMES, SUIT_SYMBOLS
from sto_odno_env.game.rules import Rules

ALL_RANKS = ("2", "3", "4", "5", *RANK_NAMES)


def deck_cards(rules: Rules) -> list[tuple[str, str]]:
    """§1, §12: the deck's cards as (rank, suit) names in id order: suit by suit, each
    from the deck's lowest rank (6, or 2 with ``deck: 52``) to the ace; a small deck's
    ranks in its first suits. Read from the rule set's plain data, not the engine's deck."""
    deck = rules.to_dict().get("deck", 36)
    if isinstance(deck, int):
        ranks, suits = ALL_RANKS[len(ALL_RANKS) - deck // 4 :], SUIT_SYMBOLS
    else:
        ranks = sorted(map(str, deck["ranks"]), key=ALL_RANKS.index)
        suits = SUIT_SYMBOLS[: deck.get("suits", 4)]
    return [(rank, suit) for suit in suits for rank in ranks]


def playable(rules: Rules, top: int, ordered_suit: int) -> set[int]:
    """§2: the cards that may be played onto ``top`` (an empty table takes any card)."""
    cards = deck_cards(rules)
    if top == len(cards):
        return set(range(len(cards)))
    if ordered_suit >= 0:
        suit = SUIT_SYMBOLS[ordered_suit]
        return {c for c, (r, s) in enumerate(cards) if s == suit or r == "Q"}
    top_rank, top_suit = cards[top]
    return {
        c
        for c, (r, s) in enumerate(cards)
        if s == top_suit or r == top_rank or rules.effect_of(c).wild
    }


def same_rank(rules: Rules, card: int, other: int) -> bool:
    cards = deck_cards(rules)
    return cards[card][0] == cards[other][0]


def round_points(
    rules: Rules,
    hands: list[set[int]],
    old: list[int],
    finisher: int,
    last_card: int | None,
    finisher_plays: list[int],
) -> list[int]:
    """§7 and the scoring switches of §12 (docs/rules.md): each seat's change of total at a
    round's end (before the reset at the target), read plainly from the rules text.
    ``finisher_plays`` are the finisher's card plays of the round, oldest first."""
    if rules.bonus_combo:
        run = []
        for card in reversed(finisher_plays if last_card is not None else []):
            if not rules.has_bonus(card):
                break
            run.append(rules.bonus_of(card))
        bonus = sum(b.points for b in run)
        multiplier = max([b.multiplier for b in run], default=1)
    elif last_card is None:
        bonus, multiplier = 0, 1
    else:
        bonus, multiplier = rules.bonus_of(last_card).points, rules.bonus_of(last_card).multiplier
    changes = []
    for seat, hand in enumerate(hands):
        if seat == finisher:
            changes.append(bonus)
            continue
        if any(rules.holds_to_win(card) for card in hand):
            changes.append(0)
            continue
        bonus_cards = [card for card in hand if rules.has_bonus(card)]
        ordinary, extra = set(hand), 0
        if rules.leftover_bonus == "subtract" and bonus_cards and len(bonus_cards) == len(hand):
            ordinary, extra = set(), sum(rules.bonus_of(card).points for card in bonus_cards)
        elif rules.leftover_bonus == "single_adds" and len(bonus_cards) == 1:
            ordinary = set(hand) - set(bonus_cards)
            extra = abs(rules.bonus_of(bonus_cards[0]).points)
        points = extra + sum(rules.points_range(card)[1] for card in ordinary)
        pairs = sorted(
            (card for card in ordinary if len(set(rules.points_range(card))) == 2),
            key=lambda card: rules.points_range(card)[0] - rules.points_range(card)[1],
        )
        savings = [rules.points_range(c)[1] - rules.points_range(c)[0] for c in pairs]
        high = points
        for saving in savings:  # the largest saving first, until the total does not pass
            if old[seat] + points <= rules.target:
                break
            points -= saving
        if rules.reset_at_target:
            for size in range(len(savings) + 1):
                for chosen in itertools.combinations(savings, size):
                    if old[seat] + high - sum(chosen) == rules.target:
                        points = high - sum(chosen)
        if rules.multiplier_scope == "total":
            summed = old[seat] + points
            changes.append((summed * multiplier if summed > 0 else summed) - old[seat])
        elif points < 0 and rules.leftover_bonus != "ordinary":
            changes.append(points)
        else:
            changes.append(points * multiplier)
    return changes
