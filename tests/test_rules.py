"""The rule set (docs/rules.md §9 presets, §11 schema): loading, overrides and errors."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from sto_odno_env.game import engine
from sto_odno_env.game.cards import parse_card
from sto_odno_env.game.rule_paths import set_path
from sto_odno_env.game.rules import (
    PRESET_DIR,
    PRESETS,
    Bonus,
    Effect,
    Rules,
    RulesError,
    load_rules,
)
from sto_odno_env.records import record

REPO = Path(__file__).resolve().parents[1]
RANKS = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
TOP_LEVEL = [
    "name",
    "players",
    "hand_size",
    "opening",
    "effects",
    "draw_rule",
    "voluntary_draw",
    "after_draw",
    "reshuffle",
    "empty_stock",
    "stacking",
    "last_card_effects",
    "cover_can_finish",
    "points",
    "finish_bonus",
    "target",
    "reset_at_target",
    "match_end",
    "max_turns",
]


def points(*values: int) -> dict[str, int]:
    return dict(zip(RANKS, values, strict=True))


PENALTY_6 = Effect(draw=1, skip=True)
PENALTY_7 = Effect(draw=2, skip=True)
COVER = Effect(cover=True)
WILD_QUEEN = Effect(wild=True, order_suit=True)
ACE = Effect(skip=True)
STANDARD_POINTS = points(6, 7, 8, 0, 10, 2, 3, 4, 11)
QUEEN_BONUS = {"Q": Bonus(points=-20), "Q♠": Bonus(points=-40)}

# docs/rules.md §9, column by column.
PRESET_TABLE: dict[str, dict[str, Any]] = {
    "classic": {
        "players": (2, 6),
        "hand_size": 5,
        "opening": "dealer_blind",
        "effects": {
            "6": PENALTY_6,
            "7": PENALTY_7,
            "8": COVER,
            "Q": WILD_QUEEN,
            "K♠": Effect(draw=4, skip=True),
            "A": ACE,
        },
        "draw_rule": "one",
        "reshuffle": "shuffle",
        "empty_stock": "skip",
        "points": STANDARD_POINTS,
        "finish_bonus": QUEEN_BONUS,
        "cover_can_finish": False,
        "reset_at_target": True,
        "match_end": "last_survivor",
    },
    "yard": {
        "players": (2, 6),
        "hand_size": 4,
        "opening": "dealer_blind",
        "effects": {
            "6": PENALTY_6,
            "7": PENALTY_7,
            "8": COVER,
            "Q": Effect(order_suit=True),
            "K♠": Effect(draw=5, skip=True),
            "A": ACE,
        },
        "draw_rule": "one",
        "reshuffle": "shuffle",
        "empty_stock": "steal",
        "points": points(6, 7, 8, 9, 10, 2, 3, 4, 11),
        "finish_bonus": {**QUEEN_BONUS, "K♠": Bonus(points=-50)},
        "cover_can_finish": False,
        "reset_at_target": True,
        "match_end": "first_loser",
    },
    "nines": {
        "players": (2, 4),
        "hand_size": 5,
        "opening": "dealer_blind",
        "effects": {
            "6": PENALTY_6,
            "7": PENALTY_7,
            "9": COVER,
            "Q": WILD_QUEEN,
            "K♠": Effect(draw=4, skip=True),
            "A": ACE,
        },
        "draw_rule": "one",
        "reshuffle": "shuffle",
        "empty_stock": "skip",
        "points": STANDARD_POINTS,
        "finish_bonus": QUEEN_BONUS,
        "cover_can_finish": False,
        "reset_at_target": True,
        "match_end": "first_loser",
    },
    "encyclopedia": {
        "players": (2, 6),
        "hand_size": 4,
        "opening": "leader_plays",
        "effects": {
            "6": PENALTY_6,
            "7": PENALTY_7,
            "8": COVER,
            "Q": WILD_QUEEN,
            "K♠": Effect(draw=4, skip=True),
            "A": ACE,
        },
        "draw_rule": "until_playable",
        "reshuffle": "flip",
        "empty_stock": "skip",
        "points": STANDARD_POINTS,
        "finish_bonus": {
            "Q♣": Bonus(points=-20, multiplier=2),
            "Q♠": Bonus(points=-40, multiplier=2),
            "Q♥": Bonus(points=-60, multiplier=2),
            "Q♦": Bonus(points=-80, multiplier=2),
            "8♥": Bonus(points=0, multiplier=3),
        },
        "cover_can_finish": True,
        "reset_at_target": False,
        "match_end": "last_survivor",
    },
    "ukrainian": {
        "players": (2, 6),
        "hand_size": 5,
        "opening": "dealer_blind",
        "effects": {
            "6": Effect(draw=2, skip=True),
            "7": Effect(draw=1),
            "Q": WILD_QUEEN,
            "K♠": Effect(draw=4, skip=True),
            "A": ACE,
        },
        "draw_rule": "one",
        "reshuffle": "shuffle",
        "empty_stock": "skip",
        "points": points(0, 0, 0, 0, 10, 2, 3, 4, 11),
        "finish_bonus": QUEEN_BONUS,
        # cover_can_finish is "—" in §9: no ukrainian card has to be covered.
        "reset_at_target": True,
        "match_end": "last_survivor",
    },
}

# §9: "All presets: ..."
PRESET_TABLE["micro"] = {  # the research preset: its own row of §9
    "players": (2, 2),
    "hand_size": 2,
    "opening": "leader_plays",
    "effects": {"7": PENALTY_7, "8": COVER, "Q": WILD_QUEEN},
    "draw_rule": "one",
    "reshuffle": "flip",
    "empty_stock": "skip",
    "stacking": True,
    "cover_can_finish": False,
    "points": {"7": 7, "8": 8, "Q": 3},
    "target": 1,
    "match_end": "first_loser",
    "max_turns": 6,
}

COMMON = {
    "voluntary_draw": True,
    "after_draw": "drawn_card",
    "stacking": False,
    "last_card_effects": False,
    "target": 101,
    "max_turns": 5000,
}


def classic_dict() -> dict[str, Any]:
    return Rules.preset("classic").to_dict()


def rules_error(data: dict[str, Any]) -> str:
    with pytest.raises(RulesError) as info:
        Rules.from_dict(data)
    return str(info.value)


# --- presets ------------------------------------------------------------------------------------


def test_preset_names() -> None:
    assert PRESETS == ("classic", "yard", "nines", "encyclopedia", "ukrainian", "micro")
    assert sorted(p.stem for p in PRESET_DIR.glob("*.yaml")) == sorted(PRESETS)


@pytest.mark.parametrize("preset", PRESETS)
def test_preset_matches_rules_section_9(preset: str) -> None:
    rules = Rules.preset(preset)
    assert rules.name == preset
    for key, value in {**COMMON, **PRESET_TABLE[preset]}.items():
        actual = getattr(rules, key)
        if key in ("effects", "finish_bonus", "points"):
            actual = dict(actual)
        assert actual == value, f"{preset}.{key}"


def test_preset_per_card_lookups() -> None:
    classic = Rules.preset("classic")
    assert classic.effect_of(parse_card("K♠")) == Effect(draw=4, skip=True)
    assert classic.effect_of(parse_card("K♥")) == Effect()  # a card key replaces its rank key
    assert classic.effect_of(parse_card("9♦")) == Effect()
    assert classic.bonus_of(parse_card("Q♠")) == Bonus(points=-40)
    assert classic.bonus_of(parse_card("Q♦")) == Bonus(points=-20)
    assert classic.bonus_of(parse_card("A♦")) == Bonus()
    assert classic.points_of(parse_card("A♣")) == 11
    yard = Rules.preset("yard")
    assert yard.effect_of(parse_card("KS")).draw == 5
    assert not yard.effect_of(parse_card("QH")).wild
    encyclopedia = Rules.preset("encyclopedia")
    assert encyclopedia.bonus_of(parse_card("8♥")) == Bonus(points=0, multiplier=3)
    assert encyclopedia.bonus_of(parse_card("8♠")) == Bonus()
    assert encyclopedia.bonus_of(parse_card("Q♦")) == Bonus(points=-80, multiplier=2)
    ukrainian = Rules.preset("ukrainian")
    assert not any(ukrainian.effect_of(card).cover for card in range(36))
    assert ukrainian.effect_of(parse_card("7♣")) == Effect(draw=1)


@pytest.mark.parametrize("preset", PRESETS)
def test_config_dir_holds_the_same_presets(preset: str) -> None:
    path = REPO / "configs" / "rules" / f"{preset}.yaml"
    assert Rules.from_yaml(path) == Rules.preset(preset)
    assert load_rules(str(path)) == load_rules(preset)


def test_unknown_preset() -> None:
    with pytest.raises(RulesError) as info:
        Rules.preset("klassik")
    message = str(info.value)
    assert "'klassik'" in message
    assert "allowed: classic, yard, nines, encyclopedia, ukrainian" in message


# --- round trips and replace ---------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_from_dict_of_to_dict_round_trip(preset: str, tmp_path: Path) -> None:
    rules = Rules.preset(preset)
    data = rules.to_dict()
    # The §11 keys in order, then the §12 switches a preset sets (micro: its small deck).
    assert list(data)[: len(TOP_LEVEL)] == TOP_LEVEL
    assert list(data)[len(TOP_LEVEL) :] == (["deck"] if preset == "micro" else [])
    assert Rules.from_dict(data) == rules
    assert Rules.from_dict(json.loads(json.dumps(data, ensure_ascii=False))) == rules
    assert Rules.from_dict(data).to_dict() == data
    path = tmp_path / "rules.yaml"
    path.write_text(rules.to_yaml(), encoding="utf-8")
    assert Rules.from_yaml(path) == rules
    assert hash(Rules.from_yaml(path)) == hash(rules)


def test_rules_are_frozen() -> None:
    rules = Rules.preset("classic")
    with pytest.raises(AttributeError):
        rules.stacking = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        rules.effects["6"] = Effect()  # type: ignore[index]


def test_replace() -> None:
    classic = Rules.preset("classic")
    changed = classic.replace(stacking=True, draw_rule="until_playable", players=(2, 4))
    assert changed.stacking and changed.draw_rule == "until_playable"
    assert changed.players == (2, 4)
    assert not classic.stacking and classic.draw_rule == "one"  # the original is unchanged
    for key in TOP_LEVEL:
        if key not in ("stacking", "draw_rule", "players"):
            assert getattr(changed, key) == getattr(classic, key), key
    effects = dict(classic.effects)
    effects["Q"] = Effect(order_suit=True)
    no_wild = classic.replace(effects=effects)
    assert no_wild.effects["Q"] == Effect(order_suit=True)
    assert no_wild.effects["K♠"] == classic.effects["K♠"]
    assert classic.replace() == classic
    with pytest.raises(RulesError, match="stacking: 'yes' is not a boolean"):
        classic.replace(stacking="yes")
    with pytest.raises(RulesError, match="unknown key 'stackng'"):
        classic.replace(stackng=True)


# --- YAML files ---------------------------------------------------------------------------------


def test_yaml_with_base_overrides_keys(tmp_path: Path) -> None:
    path = tmp_path / "house.yaml"
    path.write_text(
        """
base: classic
name: house
stacking: true
hand_size: 4
effects:
  "Q": {order_suit: true}
  KS: {draw: 5, skip: true}
  "8": {}
finish_bonus:
  K♠: {points: -50}
points: {"9": 9}
""",
        encoding="utf-8",
    )
    rules = Rules.from_yaml(path)
    classic = Rules.preset("classic")
    assert rules.name == "house"
    assert rules.stacking and rules.hand_size == 4
    assert rules.effects["Q"] == Effect(order_suit=True)
    assert rules.effects["K♠"] == Effect(draw=5, skip=True)
    assert rules.effect_of(parse_card("8♥")) == Effect()
    for rank in ("6", "7", "A"):
        assert rules.effects[rank] == classic.effects[rank]
    assert dict(rules.finish_bonus) == {**dict(classic.finish_bonus), "K♠": Bonus(points=-50)}
    assert dict(rules.points) == {**dict(classic.points), "9": 9}
    for key in ("opening", "draw_rule", "reshuffle", "empty_stock", "target", "match_end"):
        assert getattr(rules, key) == getattr(classic, key)


def test_yaml_with_other_base(tmp_path: Path) -> None:
    path = tmp_path / "yard.yaml"
    path.write_text("base: yard\nname: yard-wild\neffects: {Q: {wild: true, order_suit: true}}\n")
    rules = Rules.from_yaml(path)
    assert rules.effects["Q"] == WILD_QUEEN
    assert rules.empty_stock == "steal" and rules.effects["K♠"].draw == 5


def test_yaml_with_unknown_base(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("base: clasic\n")
    with pytest.raises(RulesError) as info:
        Rules.from_yaml(path)
    message = str(info.value)
    assert "base" in message and "'clasic'" in message
    assert "allowed: classic, yard, nines, encyclopedia, ukrainian" in message


def test_yaml_error_in_base_override_names_the_key(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("base: classic\neffects: {Q: {wild: 'yes'}}\n")
    with pytest.raises(RulesError, match=r"effects\.Q\.wild: 'yes' is not a boolean"):
        Rules.from_yaml(path)


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.yaml"
    with pytest.raises(RulesError) as info:
        Rules.from_yaml(path)
    assert str(path) in str(info.value) and "does not exist" in str(info.value)
    with pytest.raises(RulesError, match="does not exist"):
        load_rules(str(path))


def test_bad_yaml(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("base: classic\nstacking: [true\n")
    with pytest.raises(RulesError) as info:
        Rules.from_yaml(path)
    assert str(path) in str(info.value) and "not valid YAML" in str(info.value)


def test_yaml_that_is_not_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- classic\n- yard\n")
    with pytest.raises(RulesError, match="must hold a mapping"):
        Rules.from_yaml(path)


def test_load_rules_rejects_unknown_spec() -> None:
    with pytest.raises(RulesError) as info:
        load_rules("klassik")
    assert "'klassik'" in str(info.value) and "classic" in str(info.value)


# --- --set overrides ------------------------------------------------------------------------------


def test_set_overrides() -> None:
    rules = record.rules_with_overrides(
        "classic",
        [
            "stacking=true",
            "effects.Q.wild=false",
            "finish_bonus.K♠.points=-50",
            "effects.KS.draw=3",
        ],
    )
    classic = Rules.preset("classic")
    assert rules.stacking is True
    assert rules.effects["Q"] == Effect(order_suit=True, wild=False)
    assert rules.bonus_of(parse_card("K♠")) == Bonus(points=-50)
    assert rules.effects["K♠"] == Effect(draw=3, skip=True)
    assert set(rules.effects) == set(classic.effects)
    for key in TOP_LEVEL:
        if key not in ("stacking", "effects", "finish_bonus"):
            assert getattr(rules, key) == getattr(classic, key), key


@pytest.mark.parametrize(
    ("override", "check"),
    [
        ("draw_rule=until_playable", lambda r: r.draw_rule == "until_playable"),
        ("points.9=9", lambda r: r.points["9"] == 9),
        ("effects.ks.skip=false", lambda r: r.effects["K♠"] == Effect(draw=4)),
        ("effects.9.cover=true", lambda r: r.effects["9"] == Effect(cover=True)),
        ("finish_bonus.Q.multiplier=2", lambda r: r.finish_bonus["Q"] == Bonus(-20, 2)),
        ("players=[2, 4]", lambda r: r.players == (2, 4)),
        ("target=50", lambda r: r.target == 50),
    ],
)
def test_more_set_overrides(override: str, check) -> None:
    assert check(record.rules_with_overrides("classic", [override]))


def test_set_overrides_on_a_yaml_path() -> None:
    rules = record.rules_with_overrides(str(PRESET_DIR / "yard.yaml"), ["stacking=true"])
    assert rules.stacking and rules.name == "yard"


def test_set_path_matches_card_keys_by_meaning() -> None:
    data = classic_dict()
    set_path(data, "effects.ks.draw", 2)
    assert data["effects"]["K♠"] == {**data["effects"]["K♠"], "draw": 2}
    assert "ks" not in data["effects"] and "KS" not in data["effects"]


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("stacking", ["'stacking'", "key.path=value"]),
        ("stacking=maybe", ["stacking", "'maybe'", "allowed: true, false"]),
        ("stacking=1", ["stacking", "1", "allowed: true, false"]),
        ("stackng=true", ["'stackng'", "allowed:", "stacking"]),
        ("effects.Q.wlid=false", ["effects.Q", "'wlid'", "allowed:", "wild", "order_suit"]),
        ("effects.Z.draw=1", ["effects", "'Z'", "allowed:", "K♠"]),
        ("effects.6.draw=-1", ["effects.6.draw", "-1", "allowed: an integer >= 0"]),
        ("draw_rule=two", ["draw_rule", "'two'", "allowed: one, until_playable"]),
        ("finish_bonus.Q.multiplier=0", ["finish_bonus.Q.multiplier", "0", ">= 1"]),
        ("target=0", ["target", "0", "allowed: an integer >= 1"]),
        ("effects..draw=1", ["effects..draw", "empty segment"]),
        ("opening.x=1", ["opening", "not a mapping"]),
        ("stacking=[true", ["stacking=[true", "not YAML"]),
    ],
)
def test_bad_set_overrides(override: str, expected: list[str]) -> None:
    with pytest.raises(RulesError) as info:
        record.rules_with_overrides("classic", [override])
    message = str(info.value)
    for part in expected:
        assert part in message, (part, message)


# --- errors: the key path, the bad value and what is allowed --------------------------------------


def test_unknown_top_level_key() -> None:
    message = rules_error({**classic_dict(), "stackin": True})
    assert "unknown key 'stackin'" in message
    assert "allowed: " + ", ".join(TOP_LEVEL) in message


def test_missing_top_level_key() -> None:
    data = classic_dict()
    del data["reshuffle"]
    message = rules_error(data)
    assert "missing key 'reshuffle'" in message and "base" in message


@pytest.mark.parametrize(
    ("section", "key", "entry", "allowed"),
    [
        ("effects", "Q", {"wlid": True}, "allowed: draw, skip, cover, order_suit, wild"),
        ("effects", "K♠", {"draw": 4, "skips": True}, "allowed: draw, skip, cover"),
        ("finish_bonus", "Q", {"pts": -20}, "allowed: points, multiplier"),
        ("finish_bonus", "Q♠", {"points": -40, "mult": 2}, "allowed: points, multiplier"),
    ],
)
def test_unknown_key_inside_an_entry(section, key, entry, allowed) -> None:
    data = classic_dict()
    data[section][key] = entry
    message = rules_error(data)
    bad = sorted(set(entry) - {"draw", "points"})[0]
    assert f"{section}.{key}: unknown key {bad!r}" in message
    assert allowed in message


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        ("hand_size", True, "hand_size: True is not an integer"),
        ("hand_size", "5", "hand_size: '5' is not an integer"),
        ("hand_size", 5.0, "hand_size: 5.0 is not an integer"),
        ("target", False, "target: False is not an integer"),
        ("max_turns", "many", "max_turns: 'many' is not an integer"),
        ("stacking", "true", "stacking: 'true' is not a boolean; allowed: true, false"),
        ("voluntary_draw", 1, "voluntary_draw: 1 is not a boolean; allowed: true, false"),
        ("reset_at_target", "no", "reset_at_target: 'no' is not a boolean; allowed: true, false"),
        ("cover_can_finish", None, "cover_can_finish: None is not a boolean"),
        ("last_card_effects", 0, "last_card_effects: 0 is not a boolean"),
        ("effects.6.draw", True, "effects.6.draw: True is not an integer"),
        ("effects.6.draw", "1", "effects.6.draw: '1' is not an integer"),
        ("effects.6.skip", "true", "effects.6.skip: 'true' is not a boolean; allowed: true, false"),
        ("effects.8.cover", 1, "effects.8.cover: 1 is not a boolean"),
        ("effects.Q.wild", "no", "effects.Q.wild: 'no' is not a boolean"),
        ("effects.Q.order_suit", None, "effects.Q.order_suit: None is not a boolean"),
        ("finish_bonus.Q.points", True, "finish_bonus.Q.points: True is not an integer"),
        ("finish_bonus.Q.multiplier", 1.5, "finish_bonus.Q.multiplier: 1.5 is not an integer"),
        ("points.A", "11", "points.A: '11' is not an integer"),
        ("points.9", False, "points.9: False is not an integer"),
        ("effects", [], "effects: [] is not a mapping"),
        ("points", 7, "points: 7 is not a mapping"),
        ("effects.Q", True, "effects.Q: True is not a mapping"),
        ("players", 4, "players: 4 is not a pair [low, high] of integers"),
        ("players", [2, True], "players: [2, True] is not a pair"),
        ("players", [2, 3, 4], "players: [2, 3, 4] is not a pair"),
        ("name", "", "name: '' is not a non-empty string"),
        ("name", 7, "name: 7 is not a non-empty string"),
    ],
)
def test_wrong_types(path: str, value: Any, expected: str) -> None:
    data = classic_dict()
    set_path(data, path, value)
    assert expected in rules_error(data)


@pytest.mark.parametrize(
    ("key", "value", "allowed"),
    [
        ("opening", "dealer", "dealer_blind, leader_plays"),
        ("draw_rule", "until_drawn", "one, until_playable"),
        ("after_draw", "any", "drawn_card, any_card"),
        ("reshuffle", "cut", "shuffle, flip"),
        ("empty_stock", "pass", "skip, steal"),
        ("match_end", "first_winner", "last_survivor, first_loser"),
        ("opening", "Dealer_Blind", "dealer_blind, leader_plays"),
        ("reshuffle", True, "shuffle, flip"),
    ],
)
def test_bad_enum_values(key: str, value: Any, allowed: str) -> None:
    message = rules_error({**classic_dict(), key: value})
    assert f"{key}: {value!r} is not allowed; allowed: {allowed}" in message


@pytest.mark.parametrize(
    ("section", "key"),
    [
        ("effects", "B"),
        ("effects", "Z♠"),
        ("effects", "K♤♤"),
        ("effects", "1♠"),
        ("finish_bonus", "Q♪"),
        ("finish_bonus", "QQ"),
        ("points", "Q♠"),
        ("points", "2"),
        ("points", "5"),
        ("effects", "5"),
        ("effects", "11"),
        ("effects", 5),
        ("finish_bonus", "0"),
    ],
)
def test_unknown_rank_or_card_key(section: str, key: str) -> None:
    data = classic_dict()
    data[section][key] = {} if section != "points" else 1
    message = rules_error(data)
    assert f"{section}: unknown key {key!r}" in message, message
    assert "allowed: a rank (6, 7, 8, 9, 10, J, Q, K, A)" in message
    if section == "points":
        assert "card" not in message.split("allowed:")[1]
    else:
        assert "or a card such as K♠" in message


def test_repeated_key_in_two_spellings() -> None:
    data = classic_dict()
    data["effects"]["KS"] = {"draw": 1}
    message = rules_error(data)
    assert "effects" in message and "'KS'" in message and "'K♠'" in message


@pytest.mark.parametrize("players", [[1, 6], [2, 7], [0, 2], [4, 3], [7, 7], [-2, 4]])
def test_player_range_outside_2_to_6(players: list[int]) -> None:
    message = rules_error({**classic_dict(), "players": players})
    assert f"players: {players!r}" in message
    assert "allowed: 2 <= low <= high <= 6" in message


@pytest.mark.parametrize(("preset", "count"), [("classic", 1), ("classic", 7), ("nines", 5)])
def test_player_count_not_allowed_by_preset(preset: str, count: int) -> None:
    rules = Rules.preset(preset)
    low, high = rules.players
    with pytest.raises(RulesError) as info:
        rules.check_players(count)
    assert f"players: {count}" in str(info.value)
    assert f"allowed: {low}..{high}" in str(info.value)
    with pytest.raises(RulesError, match=f"allowed: {low}..{high}"):
        engine.init(rules, count, 1)


@pytest.mark.parametrize("preset", PRESETS)
def test_every_allowed_player_count_starts(preset: str) -> None:
    rules = Rules.preset(preset)
    for count in range(rules.players[0], rules.players[1] + 1):
        rules.check_players(count)
        state = engine.init(rules, count, 2, seed=1)
        assert not state.done.any()


@pytest.mark.parametrize(
    ("hand_size", "players"), [(6, [2, 6]), (8, [2, 5]), (12, [2, 3]), (18, [2, 2]), (36, [2, 2])]
)
def test_hand_size_times_players_above_35(hand_size: int, players: list[int]) -> None:
    message = rules_error({**classic_dict(), "hand_size": hand_size, "players": players})
    assert f"hand_size: {hand_size}" in message
    assert f"{hand_size * players[1]} cards" in message
    assert "hand_size * players <= 35" in message


@pytest.mark.parametrize(("hand_size", "players"), [(7, [2, 5]), (17, [2, 2]), (5, [2, 6])])
def test_hand_size_times_players_of_35_is_allowed(hand_size: int, players: list[int]) -> None:
    rules = Rules.from_dict({**classic_dict(), "hand_size": hand_size, "players": players})
    state = engine.init(rules, players[1], 3, seed=2)
    assert not state.done.any()


@pytest.mark.parametrize("hand_size", [0, -1])
def test_hand_size_below_one(hand_size: int) -> None:
    message = rules_error({**classic_dict(), "hand_size": hand_size})
    assert f"hand_size: {hand_size} is too small; allowed: an integer >= 1" in message


@pytest.mark.parametrize("draw", [-1, -5])
def test_negative_draw(draw: int) -> None:
    data = classic_dict()
    data["effects"]["7"]["draw"] = draw
    message = rules_error(data)
    assert f"effects.7.draw: {draw} is too small; allowed: an integer >= 0" in message


@pytest.mark.parametrize("multiplier", [0, -2])
def test_multiplier_below_one(multiplier: int) -> None:
    data = classic_dict()
    data["finish_bonus"]["Q♠"]["multiplier"] = multiplier
    message = rules_error(data)
    assert f"finish_bonus.Q♠.multiplier: {multiplier} is too small" in message
    assert "allowed: an integer >= 1" in message


def test_negative_finish_points_are_allowed() -> None:
    data = classic_dict()
    data["finish_bonus"]["A"] = {"points": -100, "multiplier": 5}
    assert Rules.from_dict(data).finish_bonus["A"] == Bonus(-100, 5)


@pytest.mark.parametrize("key", ["target", "max_turns"])
@pytest.mark.parametrize("value", [0, -1])
def test_target_and_max_turns_below_one(key: str, value: int) -> None:
    message = rules_error({**classic_dict(), key: value})
    assert f"{key}: {value} is too small; allowed: an integer >= 1" in message


@pytest.mark.parametrize("rank", RANKS)
def test_missing_points_rank(rank: str) -> None:
    data = classic_dict()
    del data["points"][rank]
    message = rules_error(data)
    assert f"points: rank {rank!r} is missing" in message
    assert "6, 7, 8, 9, 10, J, Q, K, A" in message


def test_rules_error_is_a_value_error() -> None:
    assert issubclass(RulesError, ValueError)


# --- every field changes behaviour ----------------------------------------------------------------


def play_events(rules: Rules, players: int, seed: int) -> list[dict[str, Any]]:
    """The events of two random matches, without the rules object of the header."""
    events = []
    for match in record.play_random_matches(rules, players, 2, seed):
        for event in match:
            if event["type"] == "match":
                event = {key: value for key, value in event.items() if key != "rules"}
            events.append(event)
    return events


def changes_play(base: Rules, changed: Rules) -> bool:
    """Whether random play differs under the two rule sets for some seed and player count."""
    for seed in range(3):
        for players in (2, 3, 4):
            if play_events(base, players, seed) != play_events(changed, players, seed):
                return True
    return False


def with_path(rules: Rules, path: str, value: Any) -> Rules:
    data = rules.to_dict()
    set_path(data, path, value)
    return Rules.from_dict(data)


# Not listed, because they cannot change play: ``name`` is a label only; ``players`` only
# decides which player counts are allowed (test_player_count_not_allowed_by_preset), never how
# a game with an allowed count is played. ``cover_can_finish`` is checked on a base with a
# cover card (classic); under ukrainian, which has none, it cannot matter.
BEHAVIOUR_CASES = [
    ("classic", "opening", "leader_plays"),
    ("encyclopedia", "opening", "dealer_blind"),
    ("classic", "draw_rule", "until_playable"),
    ("classic", "voluntary_draw", False),
    ("classic", "after_draw", "any_card"),
    ("classic", "reshuffle", "flip"),
    ("classic", "empty_stock", "steal"),
    ("yard", "empty_stock", "skip"),
    ("classic", "stacking", True),
    ("classic", "last_card_effects", True),
    ("classic", "cover_can_finish", True),
    ("classic", "reset_at_target", False),
    ("classic", "match_end", "first_loser"),
    ("classic", "hand_size", 4),
    ("classic", "target", 60),
    ("classic", "max_turns", 100),
    ("classic", "effects.6.draw", 0),
    ("classic", "effects.6.skip", False),
    ("classic", "effects.8.cover", False),
    ("classic", "effects.Q.order_suit", False),
    ("classic", "effects.Q.wild", False),
    ("classic", "effects.K♠.draw", 3),
    ("classic", "effects.A.skip", False),
    ("classic", "effects.J.skip", True),
    ("classic", "points.9", 9),
    ("classic", "finish_bonus.Q.points", -10),
    ("classic", "finish_bonus.Q.multiplier", 2),
]


@pytest.mark.parametrize(("preset", "path", "value"), BEHAVIOUR_CASES)
def test_every_field_changes_behaviour(preset: str, path: str, value: Any) -> None:
    base = Rules.preset(preset)
    if path == "reset_at_target":
        # A total of exactly 101 is rare in two random matches; with every card worth one
        # point and a target of 10, totals climb slowly and often land on the target.
        base = base.replace(target=10, points=dict.fromkeys(RANKS, 1))
    changed = with_path(base, path, value)
    assert changed != base
    assert changes_play(base, changed), f"{path}={value!r} changes nothing in random play"


@pytest.mark.parametrize("name", list(PRESETS))
def test_rules_pickle_as_plain_data(name):
    """Rules travel to worker processes by pickling (sto_odno_env.envs.sharded)."""
    rules = Rules.preset(name).replace(target=77)
    assert pickle.loads(pickle.dumps(rules)) == rules
