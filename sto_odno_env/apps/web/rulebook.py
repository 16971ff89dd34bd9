"""The rules page of the web table: the game in brief, and for each rule set on offer what
its tables say (the special cards, the card points, the finishing bonuses, every switch).

It is built from the rule sets themselves (:func:`sto_odno_env.views.text.rules_reminder`
and :meth:`Rules.to_dict`), so it works from an installed wheel and cannot drift from the
engine; the full specification, with every decision where the printed sources disagree,
is ``docs/rules.md`` in the kit's source repository.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...game.rules import Rules
from ...views.text import rules_reminder

# What each switch of a rule set decides (docs/rules.md §11-§12 hold the values' meanings).
SWITCHES = {
    "opening": "how a round opens: the dealer's last card turned up, or the first player leads",
    "draw_rule": "how many cards a draw takes: one, or until a playable card comes",
    "voluntary_draw": "whether you may draw while holding a playable card",
    "after_draw": "what may be played after a draw: the drawn card only, or any playable card",
    "reshuffle": "how the pile becomes the new stock when the stock runs out",
    "empty_stock": "what happens when nothing is left to draw",
    "stacking": "whether a penalty may be passed on with a card of the same rank",
    "last_card_effects": "whether the last card's penalty is still taken",
    "cover_can_finish": "whether a card that must be covered may end the round",
    "reset_at_target": "whether a total of exactly the target goes back to 0",
    "match_end": "when the match ends: when one player is left, or when the first is out",
    "max_turns": "decisions in a round after which the match stops unscored (a safety limit)",
    "last_card_call": "whether you must call your last card",
    "deck": "the cards in play: 36 (6 to ace), 52 (2 to ace), or chosen ranks in the first suits",
}
SHOWN_APART = {"name", "players", "hand_size", "effects", "points", "finish_bonus", "target"}


@dataclass(frozen=True)
class RuleSetPage:
    """One rule set as the rules page shows it."""

    key: str  # as the new-game form offers it
    label: str
    players: tuple[int, int]
    hand_size: int
    deck: int
    target: int
    special: list[str]  # one line per special card, bonus and the scoring
    points: list[tuple[str, int]]  # rank -> points left in hand
    switches: list[tuple[str, str, str]]  # name, value, what it decides


def rule_set_page(key: str, label: str, rules: Rules) -> RuleSetPage:
    """What the rules page shows of ``rules`` (offered as ``key``)."""
    data = rules.to_dict()
    switches = [
        (name, _deck(rules) if name == "deck" else _value(value), SWITCHES.get(name, ""))
        for name, value in data.items()
        if name not in SHOWN_APART
    ]
    return RuleSetPage(
        key=key,
        label=label,
        players=(rules.players[0], rules.players[1]),
        hand_size=rules.hand_size,
        deck=rules.deck_spec.cards,
        target=rules.target,
        special=rules_reminder(rules),
        points=[(rank, int(value)) for rank, value in data["points"].items()],
        switches=switches,
    )


def _deck(rules: Rules) -> str:
    """The deck in words: ``52``, or a small deck's ranks and suits (``7, 8, Q in ♠ ♣``)."""
    deck = rules.deck_spec
    if deck.full:
        return str(deck.cards)
    return f"{', '.join(deck.rank_names)} in {' '.join(deck.suit_symbols)}"


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
