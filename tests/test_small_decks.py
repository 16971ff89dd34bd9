"""Small decks (docs/rules.md §12, ``deck: {ranks: [...], suits: k}``) and micro, the rule
set that plays one.

* The schema key: each rule that does not fit the deck (a deal too large for it, a rank or
  card it lacks, a bad ranks list or suits value, an unknown key) is one ``RulesError``
  line naming what is allowed.
* The ids: a small deck's cards and actions are numbered within it, and its parser refuses
  what it lacks.
* Play: micro under random agents in the AEC env (PettingZoo's ``api_test``), the Gymnasium
  env (gymnasium's checker), the vector env, SB3's VecEnv (its checker), the terminal game
  and the web table; the observation's size follows the deck.
"""

from __future__ import annotations

import io
import random
import re
import warnings

import numpy as np
import pytest

from sto_odno_env import sto_odno_v0
from sto_odno_env.envs.gym_env import StoOdnoEnv, StoOdnoVectorEnv
from sto_odno_env.game import engine
from sto_odno_env.game.cards import (
    DECK36,
    CardParseError,
    action_name,
    card_name,
    deck_of,
    parse_card,
    small_deck,
)
from sto_odno_env.game.rules import Rules, RulesError
from sto_odno_env.records.replay import replay_lines
from sto_odno_env.views.observation import (
    OBS_SIZE,
    ObservationView,
    layout,
    obs_size,
    observation_space,
    observe,
    observe_one,
)
from tests.helpers import needs

MICRO = Rules.preset("micro")
DECK = MICRO.deck  # 7, 8, Q in ♠ ♣


def refusal(**changes) -> str:
    with pytest.raises(RulesError) as info:
        MICRO.replace(**changes)
    message = str(info.value)
    assert "\n" not in message  # one line
    return message


# --- the schema key --------------------------------------------------------------------------


def test_micro_plays_a_six_card_deck():
    assert (DECK.cards, DECK.ranks, DECK.suits) == (6, 3, 2)
    assert DECK.rank_names == ("7", "8", "Q") and DECK.suit_symbols == ("♠", "♣")
    assert not DECK.full and DECK.value() == {"ranks": ["7", "8", "Q"], "suits": 2}
    assert MICRO.to_dict()["deck"] == DECK.value()
    assert Rules.from_dict(MICRO.to_dict()) == MICRO
    # Every rank in four suits is a full deck, written by its size alone.
    every = small_deck(DECK36.rank_names, 4)
    assert every is DECK36 and every.value() == 36


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"hand_size": 3}, "hand_size: 3 cards for up to 2 players needs 6 cards; the deal"),
        ({"players": [2, 3]}, "hand_size * players <= 5"),
    ],
)
def test_a_deal_that_does_not_fit_the_deck_is_refused(changes, expected):
    # A deal must leave the stock at least one card: hand_size * players <= cards - 1.
    assert expected in refusal(**changes)


EFFECTS = MICRO.to_dict()["effects"]
LACKS = "(the deck has the ranks 7 8 Q in 2 suits)"


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"effects": {**EFFECTS, "K": {"draw": 1}}}, "effects: unknown key 'K'"),
        ({"effects": {**EFFECTS, "7♥": {"draw": 1}}}, "effects: unknown key '7♥'"),
        ({"points": {"7": 7, "8": 8, "Q": 3, "A": 11}}, "points: unknown key 'A'"),
        ({"finish_bonus": {"K": {"points": -20}}}, "finish_bonus: unknown key 'K'"),
        ({"finish_bonus": {"Q♥": {"points": -20}}}, "finish_bonus: unknown key 'Q♥'"),
        ({"holder_wins": ["A"]}, "holder_wins: unknown key 'A'"),
        ({"holder_wins": ["Q♦"]}, "holder_wins: unknown key 'Q♦'"),
    ],
)
def test_a_rule_naming_a_rank_or_card_the_deck_lacks_is_refused(changes, key):
    message = refusal(**changes)
    assert message.startswith(key) and LACKS in message
    assert "allowed: a rank (7, 8, Q)" in message


def test_the_points_name_every_rank_of_the_deck():
    message = refusal(points={"7": 7, "8": 8})
    assert message == "points: rank 'Q' is missing; points needs exactly the 3 rank keys 7, 8, Q"


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        (
            {"ranks": []},
            "deck.ranks: [] is not allowed; allowed: a non-empty list of ranks from 2, 3, 4, 5, "
            "6, 7, 8, 9, 10, J, Q, K, A",
        ),
        ({"ranks": ["7", "8", "Z"]}, "deck.ranks: 'Z' is not a rank; allowed: 2, 3, 4, 5"),
        ({"ranks": ["7", "8", "8"]}, "deck.ranks: '8' is named twice; each rank at most once"),
        (
            {"ranks": ["7", "8", "Q"], "suits": 0},
            "deck.suits: 0 is not allowed; allowed: 1, 2, 3, 4",
        ),
        (
            {"ranks": ["7", "8", "Q"], "suits": 5},
            "deck.suits: 5 is not allowed; allowed: 1, 2, 3, 4",
        ),
        ({"ranks": ["7", "8", "Q"], "suits": "2"}, "deck.suits: '2' is not allowed; allowed: 1, 2"),
        (
            {"ranks": ["7", "8", "Q"], "jokers": 2},
            "deck: unknown key 'jokers'; allowed: ranks, suits",
        ),
        (40, "deck: 40 is not allowed; allowed: 36 (6 to ace), 52 (2 to ace), or a small deck"),
    ],
)
def test_a_bad_deck_value_is_refused_naming_what_is_allowed(deck, message):
    assert message in refusal(deck=deck)


def test_a_deck_without_queens_plays():
    rules = MICRO.replace(
        deck={"ranks": ["7", "8", "9"], "suits": 2},
        effects={"7": EFFECTS["7"], "8": EFFECTS["8"]},
        points={"7": 7, "8": 8, "9": 9},
        finish_bonus={},
    )
    assert rules.deck.queen is None and rules.deck.cards == 6
    state = engine.init(rules, 2, 32, seed=1)
    generator = np.random.default_rng(1)
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        choices = [generator.choice(np.flatnonzero(mask)) for mask in state.legal[live]]
        engine.step(state, np.array(choices), games=live)
        assert (state.ordered_suit == -1).all()  # nothing orders a suit
        assert not (state.legal[:, rules.deck.order_base : rules.deck.draw]).any()


# --- card and action ids ---------------------------------------------------------------------


def test_a_small_decks_cards_and_actions_are_numbered_within_it():
    names = [card_name(card, DECK) for card in range(DECK.cards)]
    assert names == ["7♠", "8♠", "Q♠", "7♣", "8♣", "Q♣"]
    assert [parse_card(name, DECK) for name in names] == list(range(6))
    assert parse_card("qc", DECK) == 5 and parse_card(5, DECK) == 5
    assert (DECK.order_base, DECK.draw, DECK.pass_, DECK.call) == (6, 8, 9, 10)
    assert MICRO.num_actions == 10 and MICRO.replace(last_card_call=True).num_actions == 11
    actions = [action_name(action, DECK) for action in range(10)]
    assert actions[5:] == ["play Q♣", "order ♠", "order ♣", "draw", "pass"]
    with pytest.raises(ValueError, match=r"action id 11 is outside 0\.\.10"):
        action_name(11, DECK)
    with pytest.raises(ValueError, match=r"card id 6 is outside 0\.\.5"):
        card_name(6, DECK)


@pytest.mark.parametrize("text", ["Q♦", "QH", "7♥", "A♠", "6S", 6])
def test_the_parser_refuses_a_card_the_deck_lacks(text):
    with pytest.raises(CardParseError) as info:
        parse_card(text, DECK)
    message = str(info.value)
    if isinstance(text, str):  # a text names the deck's ranks and suits
        assert "of the 6-card deck" in message and "ranks 7 8 Q; suits ♠ ♣ or S C" in message
    else:
        assert message == "card id 6 is outside 0..5"


def test_deck_of_names_only_the_full_decks():
    assert deck_of(36) is DECK36 and deck_of(52).cards == 52 and deck_of(DECK) is DECK
    with pytest.raises(ValueError, match="deck 6 is not allowed; allowed: 36, 52"):
        deck_of(6)


# --- the observation follows the deck -----------------------------------------------------------


@pytest.mark.parametrize(
    "rules",
    [
        MICRO,
        MICRO.replace(last_card_call=True),
        MICRO.replace(deck={"ranks": ["7", "8", "Q"], "suits": 1}, hand_size=1),
        MICRO.replace(
            deck={"ranks": ["7", "8", "9", "Q"], "suits": 3},
            points={"7": 7, "8": 8, "9": 9, "Q": 3},
        ),
        Rules.preset("classic"),
        Rules.preset("classic").replace(deck=52),
    ],
    ids=["micro", "micro+call", "1 suit", "3 suits", "classic", "deck 52"],
)
def test_the_observation_size_follows_the_deck(rules):
    deck = rules.deck
    # four card blocks (hand, discard, top card + none, drawn card + none), the ordered
    # suit (+ none) and 41 entries that do not depend on the deck; one more for the call
    expected = 4 * deck.cards + deck.suits + 41 + int(rules.last_card_call)
    assert obs_size(rules) == expected
    assert observation_space(rules)["observation"].shape == (expected,)
    parts = layout(rules)
    assert parts["hand"] == slice(0, deck.cards)
    assert parts["discard"] == slice(deck.cards, 2 * deck.cards)
    assert parts["ordered_suit"].stop - parts["ordered_suit"].start == deck.suits + 1
    state = engine.init(rules, 2, 4, seed=0)
    obs = observe(state, 0)
    assert obs.shape == (4, expected)
    np.testing.assert_array_equal(observe_one(state, 0, 1), obs[1])
    view = ObservationView(obs, rules.target, deck)
    for game in range(4):
        held = [c for c in range(deck.cards) if int(state.hand[game, 0]) >> c & 1]
        assert np.flatnonzero(view.hand[game]).tolist() == held
    assert obs_size("classic") == OBS_SIZE  # the 36-card layout is unchanged


# --- micro in the envs and the apps ----------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent")
def test_micro_passes_the_pettingzoo_api_test_under_random_agents():
    from pettingzoo.test import api_test

    env = sto_odno_v0.env(rules="micro", players=2, illegal_action="raise")
    env.reset(seed=2)
    api_test(env, num_cycles=200)
    # random legal play to the end of several matches
    generator = np.random.default_rng(2)
    for seed in range(20):
        env.reset(seed=seed)
        for _agent in env.agent_iter(max_iter=100):
            observation, _, terminated, truncated, _ = env.last()
            assert observation["observation"].shape == (67,)
            assert observation["action_mask"].shape == (10,)
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(generator.choice(np.flatnonzero(observation["action_mask"]))))
        assert not env.agents, f"match {seed} did not end"


def test_micro_passes_the_gymnasium_checker_and_plays_in_the_vector_env():
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # finite bounds: no warning about them
        warnings.filterwarnings("ignore", message=".*Not able to test alternative render")
        check_env(StoOdnoEnv("micro", 2, opponents="random", illegal_action="penalize"))
    env = StoOdnoVectorEnv(8, "micro", 2, opponents="expert")
    space = env.single_observation_space
    observations, infos = env.reset(seed=3)
    generator = np.random.default_rng(3)
    ended = 0
    for _ in range(60):
        masks = infos["action_mask"]
        assert masks.shape == (8, 10) and (masks.sum(axis=1) >= 1).all()
        actions = np.array([generator.choice(np.flatnonzero(mask)) for mask in masks])
        observations, _, terminated, truncated, infos = env.step(actions)
        assert all(space.contains(row) for row in observations)
        ended += int((terminated | truncated).sum())
    assert ended >= 20  # micro's matches last a few decisions: many end and restart


@needs("stable_baselines3")
def test_micro_passes_sb3s_checker_and_plays_in_its_vec_env():
    from stable_baselines3.common.env_checker import check_env

    from sto_odno_env.envs.sb3 import StoOdnoVecEnv

    check_env(StoOdnoEnv("micro", 2, illegal_action="penalize"), warn=False)
    env = StoOdnoVecEnv(4, "micro", 2, opponents="expert", seed=5)
    assert env.observation_space.shape == (67,) and env.action_space.n == 10
    env.reset()
    generator = np.random.default_rng(5)
    ended = 0
    for _ in range(40):
        masks = env.action_masks()
        actions = np.array([generator.choice(np.flatnonzero(mask)) for mask in masks])
        _, _, dones, _ = env.step(actions)
        ended += int(dones.sum())
    assert ended >= 10


def test_micro_is_played_in_the_terminal():
    from sto_odno_env.apps.play import main

    cards = set()
    for seed in range(4):  # in some deals the human's only moves are forced
        out = io.StringIO()
        argv = ["--rules", "micro", "--seed", str(seed), "--opponents", "expert"]
        assert main(argv, io.StringIO("1\n" * 40), out) == 0
        text = out.getvalue()
        assert "rules micro · 2 players" in text and "== Match result ==" in text
        hands = re.findall(r"^  Your hand: (.*)$", text, flags=re.M)
        cards |= {card for hand in hands for card in hand.split()}
    assert cards and cards <= {"7♠", "8♠", "Q♠", "7♣", "8♣", "Q♣"}


@needs("starlette", "jinja2", "python_multipart")
def test_micro_is_played_at_the_web_table():
    from starlette.testclient import TestClient

    from sto_odno_env.apps.web.app import WebConfig, create_app

    client = TestClient(create_app(WebConfig(allowed_hosts=("testserver",))))
    response = client.post("/games", data={"rules": "micro", "players": "2", "opponent1": "greedy"})
    assert response.status_code == 200  # the page draws the small deck's cards
    game = response.url.path.rsplit("/", 1)[1]
    view = client.get(f"/api/games/{game}").json()
    assert view["deck"] == {"ranks": ["7", "8", "Q"], "suits": 2}
    generator = random.Random(4)
    while not view["over"]:
        page = client.get(f"/games/{game}")
        assert page.status_code == 200
        move = generator.choice(view["legal"])
        response = client.post(
            f"/api/games/{game}/move", json={"action": move["action"], "move": view["move"]}
        )
        assert response.status_code == 200, response.text
        view = response.json()
    record = client.get(f"/api/games/{game}/record").text
    assert replay_lines("micro.jsonl", record.splitlines()) == 1
    rules_page = client.get("/rules").text
    assert "7, 8, Q in ♠ ♣" in rules_page.split('id="micro"')[1].split("</section>")[0]
