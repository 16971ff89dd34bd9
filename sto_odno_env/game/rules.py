"""The rule set (docs/rules.md §11): a frozen, validated :class:`Rules` and its presets.

A rule set is data. Presets are the YAML files in ``sto_odno_env/game/presets/`` (also reachable
as ``configs/rules/``); a YAML file may start from ``base: PRESET`` and override keys.
Every error is a :class:`RulesError` naming the key path, the bad value and what is allowed.

>>> rules = Rules.preset("classic").replace(stacking=True)
>>> rules.effect_of(parse_card("K♠")).draw
4
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import json
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from .cards import (
    DECK36,
    SUIT_SYMBOLS,
    Deck,
    card_name,
)
from .rule_values import (
    AFTER_DRAW_RULES,
    BONUS_FIELDS,
    DRAW_RULES,
    EFFECT_FIELDS,
    EMPTY_STOCK,
    LEFTOVER_BONUSES,
    MATCH_ENDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MULTIPLIER_SCOPES,
    OPENINGS,
    PRESET_DIR,
    PRESETS,
    RESHUFFLES,
    SWITCH_DEFAULTS,
    Bonus,
    Effect,
    RulesError,
    canonical_key,
    deck_value,
    entry,
    expect_bool,
    expect_choice,
    expect_int,
    expect_mapping,
    lenient_deck,
    merge_keyed,
    plain,
    points_value,
)


@dataclasses.dataclass(frozen=True)
class Rules:
    """One rule set, exactly the schema of docs/rules.md §11.

    Build it with :meth:`preset`, :meth:`from_yaml` or :meth:`from_dict`; change it with
    :meth:`replace`. Effect and bonus keys are canonical: a rank (``"6"``…``"A"``) or a card
    with its suit symbol (``"K♠"``). A card key replaces its rank key entirely.
    """

    name: str
    players: tuple[int, int]
    hand_size: int
    opening: str
    effects: Mapping[str, Effect]
    draw_rule: str
    voluntary_draw: bool
    after_draw: str
    reshuffle: str
    empty_stock: str
    stacking: bool
    last_card_effects: bool
    cover_can_finish: bool
    points: Mapping[str, int | tuple[int, int]]
    finish_bonus: Mapping[str, Bonus]
    target: int
    reset_at_target: bool
    match_end: str
    max_turns: int
    # §12 switches (see SWITCH_DEFAULTS)
    holder_wins: tuple[str, ...] = ()
    multiplier_scope: str = "round"
    bonus_combo: bool = False
    leftover_bonus: str = "ordinary"
    last_card_call: bool = False
    call_penalty: int = 1
    deck: Deck = DECK36  # the rule set's ``deck`` value is ``deck.value()``

    @property
    def deck_spec(self) -> Deck:
        """The :class:`~sto_odno_env.game.cards.Deck` of the rule set (its card and action ids)."""
        return self.deck

    @property
    def num_actions(self) -> int:
        """The size of the action space: the deck's plays, 4 orders, draw and pass (42 for 36
        cards, 58 for 52), plus 1 with ``last_card_call`` (the call)."""
        return self.deck_spec.actions(self.last_card_call)

    # --- construction -------------------------------------------------------------------

    @classmethod
    def preset(cls, name: str) -> Rules:
        """The named preset: one of ``classic yard nines encyclopedia ukrainian``."""
        if name not in PRESETS:
            raise RulesError(f"unknown preset {name!r}; allowed: {', '.join(PRESETS)}")
        return cls.from_yaml(PRESET_DIR / f"{name}.yaml")

    @classmethod
    def from_yaml(cls, path: str | Path) -> Rules:
        """Load a rule set from a YAML file (which may start with ``base: PRESET``)."""
        path = Path(path)
        if path.is_dir():
            raise RulesError(f"rules file {str(path)!r} is a directory; give a YAML file")
        if not path.is_file():
            raise RulesError(f"rules file {str(path)!r} does not exist")
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError as error:
            raise RulesError(
                f"rules file {str(path)!r}: byte {error.start} is not UTF-8 text; a rules "
                "file is YAML text"
            ) from None
        except yaml.YAMLError as error:
            raise RulesError(
                f"rules file {str(path)!r} is not valid YAML{_yaml_place(error)}"
            ) from None
        if not isinstance(data, Mapping):
            raise RulesError(f"rules file {str(path)!r} must hold a mapping of rule keys")
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Validate a mapping of the §11 schema (plus an optional ``base``) into Rules.

        With ``base: PRESET`` the preset's keys are the defaults; ``effects``,
        ``finish_bonus`` and ``points`` then merge key by key (an entry given replaces the
        base entry of that key; ``{}`` removes an effect). Without a base every key is required.
        """
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be a mapping, got {type(data).__name__}")
        data = dict(data)
        if "base" in data:
            base_name = data.pop("base")
            if not isinstance(base_name, str) or base_name not in PRESETS:
                raise RulesError(
                    f"base: {base_name!r} is not a preset; allowed: {', '.join(PRESETS)}"
                )
            merged = Rules.preset(base_name).to_dict()
            deck = lenient_deck(data.get("deck", merged.get("deck", SWITCH_DEFAULTS["deck"])))
            if deck is not None:
                # The base's entries of ranks and cards the deck lacks are left behind.
                _fit_to_deck(merged, deck)
            for key, value in data.items():
                if key in ("effects", "finish_bonus", "points") and isinstance(value, Mapping):
                    merged[key] = merge_keyed(merged[key], value, key, deck)
                else:
                    merged[key] = value
            data = merged
        return cls(**_validate(data))

    def replace(self, **changes: Any) -> Rules:
        """A copy with some top-level keys changed, validated like :meth:`from_dict`."""
        merged = self.to_dict()
        for key, value in changes.items():
            merged[key] = plain(value)
        new_deck = lenient_deck(merged.get("deck", SWITCH_DEFAULTS["deck"]))
        if new_deck is not None and new_deck != self.deck:
            # A deck changed: the ranks and cards the new deck lacks lose their entries
            # (those not given with it), and the ranks it adds take their defaults (face
            # value for 2 to 5).
            _fit_to_deck(merged, new_deck, keep=tuple(changes))
        return Rules.from_dict(merged)

    # --- export -------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The full rule set as plain data (the record's ``rules``): every key of §11, and
        each §12 switch that is not at its default (so earlier records keep their form).
        With ``deck: 52`` the points of the ranks 2 to 5 are listed only where they are not
        their face value (their default)."""
        data = {
            "name": self.name,
            "players": list(self.players),
            "hand_size": self.hand_size,
            "opening": self.opening,
            "effects": {key: dataclasses.asdict(e) for key, e in self.effects.items()},
            "draw_rule": self.draw_rule,
            "voluntary_draw": self.voluntary_draw,
            "after_draw": self.after_draw,
            "reshuffle": self.reshuffle,
            "empty_stock": self.empty_stock,
            "stacking": self.stacking,
            "last_card_effects": self.last_card_effects,
            "cover_can_finish": self.cover_can_finish,
            "points": {
                key: list(value) if isinstance(value, tuple) else value
                for key, value in self.points.items()
                # deck 52: a rank 2 to 5 at its default (face value) is left out, as a
                # switch at its default is, so the nine keys of §11 stay the record's form
                if not (key in FACE_VALUE_RANKS and value == int(key))
            },
            "finish_bonus": {key: dataclasses.asdict(b) for key, b in self.finish_bonus.items()},
            "target": self.target,
            "reset_at_target": self.reset_at_target,
            "match_end": self.match_end,
            "max_turns": self.max_turns,
        }
        for key, default in SWITCH_DEFAULTS.items():
            value = self.deck.value() if key == "deck" else getattr(self, key)
            if value != default:
                data[key] = list(value) if isinstance(value, tuple) else value
        return data

    def to_yaml(self) -> str:
        """The rule set as YAML text that :meth:`from_yaml` reads back."""
        return yaml.safe_dump(self.to_dict(), allow_unicode=True, sort_keys=False)

    def __hash__(self) -> int:
        return self._hash

    @functools.cached_property
    def _hash(self) -> int:
        # Once per rule set: the compiled tables are cached by it, and every engine.init
        # (an OpenSpiel match's start among them) looks them up.
        return hash(json.dumps(self.to_dict(), sort_keys=True))

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        # Pickled as plain data (the mapping proxies inside do not pickle), e.g. for the
        # worker processes of sto_odno_env.envs.sharded.
        return (Rules.from_dict, (self.to_dict(),))

    # --- per-card lookups (the engine compiles these into tables) -------------------------

    def _names(self, card: int) -> tuple[str, str]:
        """A card's key (``"K♠"``) and its rank's key (``"K"``) in this rule set's deck."""
        deck = self.deck_spec
        return card_name(card, deck), deck.rank_names[deck.rank_of(card)]

    def effect_of(self, card: int) -> Effect:
        """The effect of a card: its card key if present, else its rank key, else none."""
        name, rank = self._names(card)
        if name in self.effects:
            return self.effects[name]
        return self.effects.get(rank, Effect())

    def bonus_of(self, card: int) -> Bonus:
        """The finish bonus of a card: its card key if present, else its rank key, else none."""
        name, rank = self._names(card)
        if name in self.finish_bonus:
            return self.finish_bonus[name]
        return self.finish_bonus.get(rank, Bonus())

    def points_of(self, card: int) -> int:
        """The points a card in hand scores at round end (``high`` of a ``[low, high]``
        pair: its value unless the holder would pass the target, §12)."""
        return self.points_range(card)[1]

    def points_range(self, card: int) -> tuple[int, int]:
        """``(low, high)`` points of a card in hand; ``low == high`` for a single value."""
        value = self.points[self._names(card)[1]]
        return value if isinstance(value, tuple) else (value, value)

    def has_bonus(self, card: int) -> bool:
        """Whether a card has a finish_bonus entry (a bonus card of §12, even ``{}``)."""
        name, rank = self._names(card)
        return name in self.finish_bonus or rank in self.finish_bonus

    def holds_to_win(self, card: int) -> bool:
        """Whether holding ``card`` at a round's end scores 0 (``holder_wins``, §12)."""
        name, rank = self._names(card)
        return name in self.holder_wins or rank in self.holder_wins

    def check_players(self, players: int) -> None:
        """Raise a RulesError unless ``players`` is allowed by this rule set."""
        low, high = self.players
        if isinstance(players, bool) or not isinstance(players, int) or not low <= players <= high:
            raise RulesError(
                f"players: {players!r} is not allowed by rules {self.name!r}; "
                f"allowed: {low}..{high}"
            )


# --- validation ---------------------------------------------------------------------------

_TOP_LEVEL = tuple(field.name for field in dataclasses.fields(Rules))
FACE_VALUE_RANKS = ("2", "3", "4", "5")
_REQUIRED = tuple(key for key in _TOP_LEVEL if key not in SWITCH_DEFAULTS)


def _validate(data: dict[str, Any]) -> dict[str, Any]:
    unknown = [key for key in data if key not in _TOP_LEVEL]
    if unknown:
        near = difflib.get_close_matches(str(unknown[0]), _TOP_LEVEL, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise RulesError(
            f"unknown key {unknown[0]!r}{hint}; allowed: {', '.join(_TOP_LEVEL)} (and base)"
        )
    missing = [key for key in _REQUIRED if key not in data]
    if missing:
        raise RulesError(
            f"missing key {missing[0]!r}; a rule set needs every key of docs/rules.md §11 "
            "(or `base: PRESET` to take the rest from a preset)"
        )
    out: dict[str, Any] = {}
    if not isinstance(data["name"], str) or not data["name"]:
        raise RulesError(f"name: {data['name']!r} is not a non-empty string")
    out["name"] = data["name"]

    players = data["players"]
    if (
        not isinstance(players, list | tuple)
        or len(players) != 2
        or any(isinstance(p, bool) or not isinstance(p, int) for p in players)
    ):
        raise RulesError(f"players: {players!r} is not a pair [low, high] of integers")
    low, high = players
    if not MIN_PLAYERS <= low <= high <= MAX_PLAYERS:
        raise RulesError(
            f"players: {list(players)!r} is outside the allowed range; allowed: "
            f"{MIN_PLAYERS} <= low <= high <= {MAX_PLAYERS}"
        )
    out["players"] = (low, high)

    deck = deck_value(data.get("deck", SWITCH_DEFAULTS["deck"]))
    out["deck"] = deck
    out["hand_size"] = expect_int(data["hand_size"], "hand_size", minimum=1)
    if out["hand_size"] * high > deck.cards - 1:
        more = " (or deck: 52)" if deck.cards == 36 and out["hand_size"] * high <= 51 else ""
        raise RulesError(
            f"hand_size: {out['hand_size']} cards for up to {high} players needs "
            f"{out['hand_size'] * high} cards; the deal must leave the stock at least one of "
            f"the {deck.cards} cards (hand_size * players <= {deck.cards - 1}){more}"
        )
    out["opening"] = expect_choice(data["opening"], "opening", OPENINGS)
    if out["opening"] == "dealer_blind" and out["hand_size"] < 2:
        raise RulesError(
            f"hand_size: {out['hand_size']} leaves the dealer no card under dealer_blind "
            "(the dealer's last card opens the round); allowed: hand_size >= 2"
        )

    effects = {}
    for key, value in expect_mapping(data["effects"], "effects").items():
        canonical = canonical_key(key, "effects", deck=deck)
        if canonical in effects:
            raise RulesError(f"effects: key {key!r} repeats {canonical!r}")
        effect = entry(value, f"effects.{canonical}", EFFECT_FIELDS, Effect)
        if effect.cover and (effect.draw or effect.skip):
            raise RulesError(
                f"effects.{canonical}: cover cannot be combined with draw or skip "
                "(the turn never passes on a card that must be covered); allowed: "
                "cover alone, or with order_suit and wild"
            )
        effects[canonical] = effect
    out["effects"] = MappingProxyType(effects)

    out["draw_rule"] = expect_choice(data["draw_rule"], "draw_rule", DRAW_RULES)
    out["voluntary_draw"] = expect_bool(data["voluntary_draw"], "voluntary_draw")
    out["after_draw"] = expect_choice(data["after_draw"], "after_draw", AFTER_DRAW_RULES)
    out["reshuffle"] = expect_choice(data["reshuffle"], "reshuffle", RESHUFFLES)
    out["empty_stock"] = expect_choice(data["empty_stock"], "empty_stock", EMPTY_STOCK)
    for key in ("stacking", "last_card_effects", "cover_can_finish"):
        out[key] = expect_bool(data[key], key)

    points_in = expect_mapping(data["points"], "points")
    points = {}
    for key, value in points_in.items():
        canonical = canonical_key(key, "points", allow_cards=False, deck=deck)
        points[canonical] = points_value(value, f"points.{canonical}")
    for rank in deck.rank_names:
        if rank not in points and rank in FACE_VALUE_RANKS:
            points[rank] = int(rank)  # deck 52: the ranks 2 to 5 default to face value
    absent = [rank for rank in deck.rank_names if rank not in points]
    if absent:
        default = " (2 to 5 default to face value)" if deck.cards == 52 else ""
        raise RulesError(
            f"points: rank {absent[0]!r} is missing; points needs exactly the {deck.ranks} rank "
            f"keys {', '.join(deck.rank_names)}{default}"
        )
    out["points"] = MappingProxyType({rank: points[rank] for rank in deck.rank_names})

    bonuses = {}
    for key, value in expect_mapping(data["finish_bonus"], "finish_bonus").items():
        canonical = canonical_key(key, "finish_bonus", deck=deck)
        if canonical in bonuses:
            raise RulesError(f"finish_bonus: key {key!r} repeats {canonical!r}")
        bonuses[canonical] = entry(value, f"finish_bonus.{canonical}", BONUS_FIELDS, Bonus)
    out["finish_bonus"] = MappingProxyType(bonuses)

    out["target"] = expect_int(data["target"], "target", minimum=1)
    out["reset_at_target"] = expect_bool(data["reset_at_target"], "reset_at_target")
    out["match_end"] = expect_choice(data["match_end"], "match_end", MATCH_ENDS)
    out["max_turns"] = expect_int(data["max_turns"], "max_turns", minimum=1)
    _validate_switches(data, out, deck)
    return out


def _yaml_place(error: yaml.YAMLError) -> str:
    """Where PyYAML stopped and why, in one line: ``at line 4, column 1: expected ...``."""
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{where}: {problem}"


def _fit_to_deck(data: dict[str, Any], deck: Deck, keep: tuple[str, ...] = ()) -> None:
    """Drop the entries of ``effects``, ``finish_bonus``, ``points`` and ``holder_wins``
    (except the keys in ``keep``) whose rank or card ``deck`` lacks."""

    def fits(key: Any, path: str) -> bool:
        try:
            canonical_key(key, path, allow_cards=path != "points", deck=deck)
        except RulesError:
            return False
        return True

    for path in ("effects", "finish_bonus", "points"):
        if path not in keep and isinstance(data.get(path), Mapping):
            data[path] = {key: value for key, value in data[path].items() if fits(key, path)}
    if "holder_wins" not in keep and isinstance(data.get("holder_wins"), list | tuple):
        data["holder_wins"] = [key for key in data["holder_wins"] if fits(key, "holder_wins")]


def _validate_switches(data: dict[str, Any], out: dict[str, Any], deck: Deck) -> None:
    """The optional §12 switches, each at its default when absent."""
    value = data.get("holder_wins", ())
    if not isinstance(value, list | tuple):
        raise RulesError(
            f"holder_wins: {value!r} is not a list; allowed: a list of cards or ranks, e.g. [Q♥]"
        )
    holders: list[str] = []
    for key in value:
        canonical = canonical_key(key, "holder_wins", deck=deck)
        if canonical in holders:
            raise RulesError(f"holder_wins: {key!r} repeats {canonical!r}")
        holders.append(canonical)
    out["holder_wins"] = tuple(holders)
    out["multiplier_scope"] = expect_choice(
        data.get("multiplier_scope", "round"), "multiplier_scope", MULTIPLIER_SCOPES
    )
    out["bonus_combo"] = expect_bool(data.get("bonus_combo", False), "bonus_combo")
    out["leftover_bonus"] = expect_choice(
        data.get("leftover_bonus", "ordinary"), "leftover_bonus", LEFTOVER_BONUSES
    )
    out["last_card_call"] = expect_bool(data.get("last_card_call", False), "last_card_call")
    # Kept (and recorded when not 1) also with the call off, where it has no effect.
    out["call_penalty"] = expect_int(data.get("call_penalty", 1), "call_penalty", minimum=1)


def load_rules(spec: str | Path | Rules | Mapping[str, Any]) -> Rules:
    """A Rules from a preset name, a YAML path, a mapping or a Rules (returned as is)."""
    if isinstance(spec, Rules):
        return spec
    if isinstance(spec, Mapping):
        return Rules.from_dict(spec)
    text = str(spec)
    if text in PRESETS:
        return Rules.preset(text)
    if text.endswith((".yaml", ".yml")) or Path(text).exists():
        return Rules.from_yaml(text)
    raise RulesError(f"rules {text!r} is neither a preset ({', '.join(PRESETS)}) nor a YAML file")


__all__ = [
    "AFTER_DRAW_RULES",
    "DRAW_RULES",
    "EMPTY_STOCK",
    "LEFTOVER_BONUSES",
    "MATCH_ENDS",
    "MULTIPLIER_SCOPES",
    "OPENINGS",
    "PRESETS",
    "RESHUFFLES",
    "SUIT_SYMBOLS",
    "SWITCH_DEFAULTS",
    "Bonus",
    "Effect",
    "Rules",
    "RulesError",
    "load_rules",
]
