"""101 in TextArena (sto_odno_env/interop/textarena.py), run by TextArena's own loop:
``ta.make``, ``env.reset(num_players=...)``, ``env.get_observation()``,
``env.step(action=str)``, ``env.close()``; with scripted text agents and with the kit's
bots seated through the text interface."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

ta = pytest.importorskip("textarena")

from sto_odno_env.bots.registry import load  # noqa: E402
from sto_odno_env.game import engine  # noqa: E402
from sto_odno_env.game.cards import card_name  # noqa: E402
from sto_odno_env.game.rules import PRESETS, Rules  # noqa: E402
from sto_odno_env.interop.textarena import (  # noqa: E402
    KitAgent,
    StoOdnoTextEnv,
    env_ids,
    register_envs,
)
from sto_odno_env.views.observation import observe_one  # noqa: E402


def listed_moves(observation: str) -> list[str]:
    """The legal moves of the last view in a text observation, as listed."""
    tail = observation.rsplit("Legal moves:", 1)[1]
    return re.findall(r"^ *\d+\) (.*?)(?: \(.*\))?$", tail, flags=re.M)


def text_of(observation) -> str:
    """The observation as one string (the -raw ids give TextArena's message list)."""
    if isinstance(observation, str):
        return observation
    return "\n".join(message for _, message, _ in observation)


def run_loop(env, agents, seed: int, players: int, limit: int = 20_000):
    """TextArena's loop; returns (rewards, game_info, steps)."""
    env.reset(num_players=players, seed=seed)
    done, steps = False, 0
    while not done and steps < limit:
        player, observation = env.get_observation()
        done, _ = env.step(action=agents[player](text_of(observation)))
        steps += 1
    assert done, f"no end after {limit} steps"
    rewards, game_info = env.close()
    return rewards, game_info, steps


def scripted(seed: int):
    """A text agent: one of the listed moves at random, written as a person might."""
    generator = random.Random(seed)
    forms = ("[{}]", "I will {}.", "[{}]", "{}")

    def answer(observation: str) -> str:
        move = generator.choice(listed_moves(observation))
        return generator.choice(forms).format(move.upper() if generator.random() < 0.2 else move)

    return answer


def test_every_id_is_registered_and_makes_its_rules():
    register_envs()  # a second registration leaves the ids as they are
    for env_id, rules in env_ids().items():
        for suffix in ("", "-train", "-raw"):
            env = ta.make(env_id + suffix)
            inner = env
            while hasattr(inner, "env"):
                inner = inner.env
            assert isinstance(inner, StoOdnoTextEnv) and inner.rules.name == rules
    assert set(env_ids()) == {"StoOdno-v0", *(f"StoOdno-v0-{name}" for name in PRESETS)}


@pytest.mark.parametrize("preset", PRESETS)
def test_scripted_text_agents_play_every_preset_at_every_count(preset):
    """Whole matches at the smallest and largest count each preset allows (through the
    ``-raw`` id: the default wrappers resend the whole history each turn), the first moves
    at every count with the default wrappers; rewards are the kit's match reward,
    zero-sum."""
    low, high = Rules.preset(preset).players
    for players in range(low, high + 1):
        agents = [scripted(seed) for seed in range(players)]
        env = ta.make(f"StoOdno-v0-{preset}")
        env.reset(num_players=players, seed=players)
        for _ in range(30):
            player, observation = env.get_observation()
            assert isinstance(observation, str)
            done, _ = env.step(action=agents[player](observation))
            if done:  # a small deck's match can end within these moves
                assert "Ranking" in env.close()[1][player]["reason"]
                break
        if players not in (low, high):
            continue
        env = ta.make(f"StoOdno-v0-{preset}-raw")
        rewards, game_info, _ = run_loop(env, agents, seed=players, players=players)
        assert sorted(rewards) == list(range(players))
        assert abs(sum(rewards.values())) < 1e-6
        assert not any(info["invalid_move"] for info in game_info.values())
        reason = game_info[0]["reason"]
        assert reason.startswith("The match is ") and "Ranking (totals):" in reason


def test_a_view_in_the_default_wrapper_shows_the_seat_what_it_may_know():
    env = ta.make("StoOdno-v0")
    env.reset(num_players=3, seed=4)
    player, observation = env.get_observation()
    assert isinstance(observation, str)
    assert f"You are Player {player} in a 3-player game of 101 (rules classic)" in observation
    assert "8: must be covered by another card of yours" in observation
    inner = env.env.env
    state = inner.match.state
    hand = int(state.hand[0, player])
    from sto_odno_env.game.cards import card_name

    own = " ".join(card_name(c) for c in range(36) if hand >> c & 1)
    assert f"Your hand: {own}" in observation
    for other in range(3):  # no other hand is shown
        if other != player:
            cards = [card_name(c) for c in range(36) if int(state.hand[0, other]) >> c & 1]
            assert " ".join(cards) not in observation
    assert listed_moves(observation)


def _invalid_then(env, players: int, answers: list[str]):
    env.reset(num_players=players, seed=11)
    player, _ = env.get_observation()
    results = []
    for answer in answers:
        done, _ = env.step(action=answer)
        now, observation = env.get_observation()
        results.append((done, now, text_of(observation)))
        if done:
            break
    return player, results


@pytest.mark.parametrize("players", [2, 4])
def test_invalid_answers_as_textarena_handles_them(players):
    """An answer that is not a legal move is refused with the legal moves and the same seat
    answers again; a second one in a row (error_allowance 1) loses the match: -1 for that
    seat, +1 shared by the others."""
    env = ta.make("StoOdno-v0-raw")
    player, results = _invalid_then(env, players, ["[fly away]", "[play 5♠]"])
    done, now, message = results[0]
    assert not done and now == player
    assert "attempted an invalid move" in message and "'fly away' is not a " in message
    assert "legal: " in message
    # the parser's message is a sentence of its own between TextArena's
    assert re.search(r"Reason: '.*; legal: [^.\n]*\. Please resubmit", message), message
    assert results[1][0]  # done
    rewards, game_info = env.close()
    reason = game_info[player]["reason"]
    assert re.fullmatch(
        rf"Player {player} lost the match by invalid moves\. The last: .+; legal: [^.]*\.",
        reason,
    ), reason
    assert rewards[player] == -1
    assert sum(rewards.values()) == pytest.approx(0)
    assert all(rewards[p] == pytest.approx(1 / (players - 1)) for p in rewards if p != player)
    assert game_info[player]["invalid_move"]


def test_a_valid_answer_resets_the_allowance():
    """Invalid, then valid, over and over: the allowance of one is never used up."""
    env = StoOdnoTextEnv(error_allowance=1)
    env.reset(num_players=3, seed=5)
    for _ in range(6):
        player = env.state.current_player_id
        done, _ = env.step(action="[nonsense]")
        assert not done and env.state.current_player_id == player
        done, _ = env.step(action=f"[{listed_moves(env.get_board_str())[0]}]")
        if done:
            break
    assert not any(info["invalid_move"] for info in env.state.game_info.values())


@pytest.mark.parametrize(("preset", "players"), [("classic", 2), ("yard", 4), ("nines", 3)])
def test_the_kits_bots_through_the_text_interface_play_as_at_the_engine(preset, players):
    """Bots seated in TextArena through action strings (KitAgent) play the very match the
    engine plays with the same bots and seed: same ranking and totals, no invalid move."""
    names = ["expert", "greedy", "expert", "greedy"][:players]
    env = ta.make(f"StoOdno-v0-{preset}-raw")
    bots = [load(name, rules=preset, players=players, seed=seat) for seat, name in enumerate(names)]
    agents = [KitAgent(env, bot) for bot in bots]
    rewards, game_info, _ = run_loop(env, agents, seed=21, players=players)
    assert not any(info["invalid_move"] for info in game_info.values())
    text_state = env.env.match.state if hasattr(env, "env") else env.match.state

    state = engine.init(preset, players, 1, seed=21)
    direct = [load(name, rules=preset, players=players, seed=s) for s, name in enumerate(names)]
    total = np.zeros(players)
    while not bool(state.done[0]):
        seat = int(state.current_player[0])
        action = int(direct[seat](observe_one(state, seat), state.legal[0]))
        _, step_rewards, _ = engine.step(state, np.array([action]))
        total += step_rewards[0]
    assert state.final_ranking[0].tolist() == text_state.final_ranking[0].tolist()
    assert state.final_totals[0].tolist() == text_state.final_totals[0].tolist()
    assert [rewards[p] for p in range(players)] == pytest.approx(total.tolist(), abs=1e-6)


def test_bad_settings_are_refused_with_what_is_allowed():
    with pytest.raises(ValueError, match=r"6 is not allowed by rules 'nines'; allowed: 2\.\.4"):
        ta.make("StoOdno-v0-nines").reset(num_players=6)
    with pytest.raises(ValueError, match=r"seed must be an integer >= 0"):
        ta.make("StoOdno-v0").reset(num_players=2, seed=-1)
    with pytest.raises(ValueError, match=r"error_allowance must be an integer >= 0"):
        StoOdnoTextEnv(error_allowance=-1)
    with pytest.raises(ValueError, match=r"no-such-rules"):
        StoOdnoTextEnv(rules="no-such-rules")


@pytest.mark.parametrize("env_id", sorted(env_ids()))
def test_the_rules_and_the_view_ask_for_the_same_answer(env_id):
    """The rules part of the prompt and the view's last line ask for one format (one move
    as listed, in square brackets); their examples are moves of the rule set's deck."""
    env = ta.make(f"{env_id}-raw")
    for seed in range(20):  # a small deck's match may end in its forced opening moves
        env.reset(num_players=2, seed=seed)
        player, observation = env.get_observation()
        text = text_of(observation)
        if "Legal moves:" in text:
            break
    asks = [line for line in text.splitlines() if "Answer with" in line]
    assert len(asks) == 2  # the rules, then the view
    assert all("Answer with one move as listed, in square brackets" in line for line in asks)
    state = env.env.match.state if hasattr(env, "env") else env.match.state
    deck = state.tables.deck
    names = {card_name(card, deck) for card in range(deck.cards)}
    for example in re.findall(r"\[(?:play|cover) ([^\s\]]+)", asks[0]):
        assert example in names
    # the view's example is the first listed move, written as asked
    example = re.search(r"e\.g\. (\[.*\])\.$", asks[1])[1]
    assert example == f"[{listed_moves(text)[0]}]"
    done, _ = env.step(action=example)
    assert not done or not env.close()[1][player].get("invalid_move")
