"""The value types and checks of a rule set: the allowed choices, the variant switches'
defaults, :class:`Effect`, :class:`Bonus`, :class:`RulesError` and the helpers that check
one value each, naming the key path, the bad value and what is allowed.

:mod:`sto_odno_env.game.rules` builds :class:`~sto_odno_env.game.rules.Rules` from them (and
re-exports every public name here).
"""

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..tools.errors import StoOdnoError
from .cards import (
    ALL_RANK_NAMES,
    DECK36,
    DECK_SIZES,
    NUM_SUITS,
    CardParseError,
    Deck,
    card_name,
    deck_of,
    parse_card,
    parse_rank,
    small_deck,
)

PRESET_DIR = Path(__file__).resolve().parent / "presets"
PRESETS = ("classic", "yard", "nines", "encyclopedia", "ukrainian", "micro")
MIN_PLAYERS, MAX_PLAYERS = 2, 6

OPENINGS = ("dealer_blind", "leader_plays")
DRAW_RULES = ("one", "until_playable")
AFTER_DRAW_RULES = ("drawn_card", "any_card")
RESHUFFLES = ("shuffle", "flip")
EMPTY_STOCK = ("skip", "steal")
MATCH_ENDS = ("last_survivor", "first_loser")
MULTIPLIER_SCOPES = ("round", "total")
LEFTOVER_BONUSES = ("ordinary", "subtract", "single_adds")

# The variant switches of docs/rules.md §12: optional keys, each off by default, so a rule set
# (or a record) that leaves them out plays exactly as before. ``to_dict`` lists a switch
# only where it differs from its default.
SWITCH_DEFAULTS: dict[str, Any] = {
    "holder_wins": (),
    "multiplier_scope": "round",
    "bonus_combo": False,
    "leftover_bonus": "ordinary",
    "last_card_call": False,
    "call_penalty": 1,
    "deck": 36,
}


class RulesError(StoOdnoError):
    """A rule set that does not fit the schema of docs/rules.md §11."""


@dataclasses.dataclass(frozen=True)
class Effect:
    """What a played card does (docs/rules.md §5)."""

    draw: int = 0
    skip: bool = False
    cover: bool = False
    order_suit: bool = False
    wild: bool = False


@dataclasses.dataclass(frozen=True)
class Bonus:
    """What finishing a round on a card is worth (docs/rules.md §7)."""

    points: int = 0
    multiplier: int = 1


EFFECT_FIELDS = {field.name: field.type for field in dataclasses.fields(Effect)}
BONUS_FIELDS = {field.name: field.type for field in dataclasses.fields(Bonus)}


def plain(value: Any) -> Any:
    """Rules objects' parts back to plain data, so replace() can take either."""
    if isinstance(value, Effect | Bonus):
        return dataclasses.asdict(value)
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return list(value)
    return value


def merge_keyed(base: Mapping, override: Mapping, path: str, deck: Deck | None = None) -> dict:
    merged = dict(base)
    for key, value in override.items():
        canonical = canonical_key(key, path, allow_cards=path != "points", deck=deck)
        for existing in list(merged):
            if canonical_key(existing, path, allow_cards=path != "points", deck=deck) == canonical:
                del merged[existing]
        merged[canonical] = value
    return merged


DECK_ALLOWED = (
    "36 (6 to ace), 52 (2 to ace), or a small deck {ranks: [...], suits: 1-4} "
    f"(ranks from {', '.join(ALL_RANK_NAMES)}, each once; suits default 4)"
)


def deck_value(value: Any) -> Deck:
    """The ``deck`` key (docs/rules.md §12): 36 or 52 cards, a small deck's mapping
    ``{ranks: [...], suits: k}``, or a :class:`Deck`."""
    if isinstance(value, Deck):
        return value
    if isinstance(value, Mapping):
        return _small_deck_value(value)
    if isinstance(value, bool) or value not in DECK_SIZES:
        raise RulesError(f"deck: {value!r} is not allowed; allowed: {DECK_ALLOWED}")
    return deck_of(value)


def _small_deck_value(value: Mapping) -> Deck:
    unknown = sorted(set(map(str, value)) - {"ranks", "suits"})
    if unknown:
        raise RulesError(f"deck: unknown key {unknown[0]!r}; allowed: ranks, suits")
    ranks = value.get("ranks")
    if not isinstance(ranks, list | tuple) or not ranks:
        raise RulesError(
            f"deck.ranks: {ranks!r} is not allowed; allowed: a non-empty list of ranks from "
            f"{', '.join(ALL_RANK_NAMES)}"
        )
    names = []
    every_rank = deck_of(52)  # the deck holding every rank: its parser reads any of them
    for rank in ranks:
        try:
            if isinstance(rank, bool):
                raise CardParseError(rank)
            key = every_rank.rank_names[parse_rank(rank, every_rank)]
        except CardParseError:
            raise RulesError(
                f"deck.ranks: {rank!r} is not a rank; allowed: {', '.join(ALL_RANK_NAMES)}"
            ) from None
        if key in names:
            raise RulesError(f"deck.ranks: {rank!r} is named twice; each rank at most once")
        names.append(key)
    suits = value.get("suits", NUM_SUITS)
    if isinstance(suits, bool) or not isinstance(suits, int) or not 1 <= suits <= NUM_SUITS:
        raise RulesError(f"deck.suits: {suits!r} is not allowed; allowed: 1, 2, 3, 4")
    return small_deck(tuple(sorted(names, key=ALL_RANK_NAMES.index)), suits)


def lenient_deck(value: Any) -> Deck | None:
    """The deck a rules mapping names, or None when the value is not a deck (its error
    comes from the validation)."""
    try:
        return deck_value(value)
    except RulesError:
        return None


def canonical_key(
    key: Any, path: str, *, allow_cards: bool = True, deck: Deck | None = None
) -> str:
    """``"K♠"``, ``"KS"`` or ``"ks"`` → ``"K♠"``; ``6`` or ``"6"`` → ``"6"`` (ranks and cards
    of ``deck``, the 36-card one by default; ``"2"``…``"5"`` only in the 52-card deck)."""
    deck = deck or DECK36
    if isinstance(key, bool):
        raise RulesError(f"{path}: key {key!r} is not a rank or card")
    try:
        return deck.rank_names[parse_rank(key, deck)]
    except CardParseError:
        pass
    if allow_cards and isinstance(key, str):  # an int is a rank or nothing, never a card id
        try:
            return card_name(parse_card(key, deck), deck)
        except CardParseError:
            pass
    allowed = "a rank (" + ", ".join(deck.rank_names) + ")"
    if allow_cards:
        # an example card of this deck: K♠, or its highest rank in its first suit
        rank = deck.rank_names.index("K") if "K" in deck.rank_names else deck.ranks - 1
        example = card_name(rank, deck)
        letters = example[:-1] + "S"
        allowed += f" or a card such as {example} or {letters}"
    hint = ""
    low = str(key).strip().upper()
    if deck.cards == 36 and (low in ("2", "3", "4", "5") or low[:-1] in ("2", "3", "4", "5")):
        hint = " (ranks 2 to 5 exist only with deck: 52)"
    elif not deck.full:
        hint = f" (the deck has the ranks {' '.join(deck.rank_names)} in {deck.suits} suits)"
    raise RulesError(f"{path}: unknown key {key!r}{hint}; allowed: {allowed}")


def expect_int(value: Any, path: str, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        allowed = "an integer" if minimum is None else f"an integer >= {minimum}"
        raise RulesError(f"{path}: {value!r} is not an integer; allowed: {allowed}")
    if minimum is not None and value < minimum:
        raise RulesError(f"{path}: {value!r} is too small; allowed: an integer >= {minimum}")
    return value


def expect_bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"{path}: {value!r} is not a boolean; allowed: true, false")
    return value


def expect_choice(value: Any, path: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise RulesError(f"{path}: {value!r} is not allowed; allowed: {', '.join(allowed)}")
    return value


def expect_mapping(value: Any, path: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise RulesError(f"{path}: {value!r} is not a mapping")
    return value


def entry(value: Any, path: str, fields: dict[str, Any], cls: type) -> Any:
    value = {} if value is None else expect_mapping(value, path)
    unknown = sorted(set(map(str, value)) - set(fields))
    if unknown:
        raise RulesError(f"{path}: unknown key {unknown[0]!r}; allowed: {', '.join(fields)}")
    kwargs: dict[str, bool | int] = {}
    for name, kind in fields.items():
        if name not in value:
            continue
        item_path = f"{path}.{name}"
        if kind in ("bool", bool):
            kwargs[name] = expect_bool(value[name], item_path)
        elif name == "multiplier":
            kwargs[name] = expect_int(value[name], item_path, minimum=1)
        elif name == "draw":
            kwargs[name] = expect_int(value[name], item_path, minimum=0)
        else:
            kwargs[name] = expect_int(value[name], item_path)
    return cls(**kwargs)


def points_value(value: Any, path: str) -> int | tuple[int, int]:
    """An integer, or a pair ``[low, high]`` of integers with low <= high (§12)."""
    if isinstance(value, list | tuple):
        if len(value) != 2 or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
            raise RulesError(
                f"{path}: {list(value)!r} is not allowed; allowed: an integer or a pair "
                "[low, high] of integers (e.g. [1, 11])"
            )
        low, high = value
        if low > high:
            raise RulesError(
                f"{path}: {list(value)!r} has low > high; allowed: a pair [low, high] with "
                "low <= high"
            )
        return (low, high) if low != high else low
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(
            f"{path}: {value!r} is not an integer; allowed: an integer or a pair "
            "[low, high] of integers"
        )
    return value
