"""The bots of ``agents`` against their contract (``agents/__init__.py``, ``heuristic.py``,
``rollout.py``, ``registry.py``, ``checkpoint.py``).

* Every bot picks only legal actions, on every preset and player count (hypothesis, batched
  in the engine), and keeps the documented invariants over many random decisions.
* The one-decision call equals the batched call; bots play the AEC env, and sit as opponents
  in the Gymnasium single and vector envs.
* The documented strategies on hand-made situations (``sto_odno_env.records.scenario.Game``).
* Determinism under a seed, ``agents.load`` for every name, clear ``AgentError`` and
  ``CheckpointError`` messages, policy files and SB3 zips.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agents
from agents import (
    AgentError,
    CheckpointError,
    ExpertAgent,
    GreedyAgent,
    RandomAgent,
    RolloutAgent,
)
from sto_odno_env import PRESETS, Rules, sto_odno_v0
from sto_odno_env.bots.checkpoint import (
    SB3PolicyAgent,
    TorchPolicyAgent,
    build_network,
    save_policy,
)
from sto_odno_env.bots.checkpoint import load as load_checkpoint
from sto_odno_env.bots.features import CardTables
from sto_odno_env.bots.policy import BasePolicy
from sto_odno_env.envs.gym_env import StoOdnoEnv, StoOdnoVectorEnv
from sto_odno_env.game import engine
from sto_odno_env.game.cards import DRAW, NUM_ACTIONS, ORDER_BASE, PASS, parse_card
from sto_odno_env.game.engine import ORDER, PLAY
from sto_odno_env.records.scenario import Game
from sto_odno_env.views.observation import OBS_SIZE, ObservationView, observe
from tests.preset_combos import COMBOS

SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
SUIT = {"♠": 0, "♣": 1, "♦": 2, "♥": 3}


# --- helpers ----------------------------------------------------------------------------------


def c(name: str) -> int:
    """Card id of ``"Q♠"``."""
    return parse_card(name)


def decide(agent, game: Game, seat: int | None = None) -> int:
    """The agent's one decision for the player to act (or ``seat``) in a scenario game."""
    seat = game.player if seat is None else seat
    return agent(observe(game.state, seat)[0], engine.legal_mask(game.state)[0])


def assert_legal(actions: np.ndarray, masks: np.ndarray, who: str) -> None:
    actions = np.asarray(actions)
    assert actions.shape == (masks.shape[0],), f"{who}: shape {actions.shape}"
    assert np.issubdtype(actions.dtype, np.integer), f"{who}: dtype {actions.dtype}"
    assert ((actions >= 0) & (actions < masks.shape[1])).all(), f"{who}: {actions}"
    bad = np.flatnonzero(masks[np.arange(actions.size), actions] == 0)
    assert not bad.size, f"{who} chose illegal actions {actions[bad].tolist()} (rows {bad})"


def run_games(rules, players, bots, batch, steps, seed, check=None):
    """Step ``batch`` games for ``steps`` decisions; every bot acts on every live game each
    step (asserting legality), and game ``g`` follows bot ``(g + step) % len(bots)``.
    ``check(state, live, obs, masks, chosen)`` sees every decision. Returns the state."""
    state = engine.init(rules, players, batch, seed=seed)
    for step in range(steps):
        live = np.flatnonzero(~state.done)
        if not live.size:
            break
        obs = observe(state, games=live)
        masks = state.legal[live]
        assert (masks.sum(axis=1) >= 2).all()  # forced decisions are never shown
        chosen = []
        for bot in bots:
            actions = np.asarray(bot.act(obs.copy(), masks.copy()))
            assert_legal(actions, masks, type(bot).__name__)
            chosen.append(actions)
        if check is not None:
            check(state, live, obs, masks, chosen)
        who = (live + step) % len(bots)
        engine.step(state, np.choose(who, chosen).astype(np.int64), games=live)
    return state


# --- 1. legal actions only --------------------------------------------------------------------


@settings(max_examples=50, **SETTINGS)
@given(
    combo=st.sampled_from(COMBOS),
    seed=st.integers(0, 2**40),
    steps=st.integers(10, 48),
    batch=st.integers(1, 12),
)
def test_heuristic_bots_pick_only_legal_actions(combo, seed, steps, batch):
    preset, players = combo
    rules = Rules.preset(preset)
    bots = [
        RandomAgent(rules, players, seed=seed),
        GreedyAgent(rules, players),
        ExpertAgent(rules, players),
    ]
    run_games(rules, players, bots, batch, steps, seed)


@settings(max_examples=6, **SETTINGS)
@given(combo=st.sampled_from(COMBOS), seed=st.integers(0, 2**40))
def test_rollout_bot_picks_only_legal_actions(combo, seed):
    preset, players = combo
    rules = Rules.preset(preset)
    bots = [RolloutAgent(rules, players, samples=2, horizon=4, seed=seed), GreedyAgent(rules)]
    run_games(rules, players, bots, batch=4, steps=12, seed=seed)


@pytest.mark.parametrize(
    "preset",
    [p if p in ("nines", "yard") else pytest.param(p, marks=pytest.mark.slow) for p in PRESETS],
)
def test_documented_invariants_hold_over_many_decisions(preset):
    """Over thousands of decisions of mixed play, on every player count:

    * greedy never draws or passes while a card is legal, plays a legal card worth the
      most points, and orders a suit holding the most points;
    * expert never draws voluntarily while a card is legal in PLAY, always finishes when
      its last card may be played, and (away from the target) never plays a card with a
      finishing bonus while a plain legal card (no bonus, no cover) remains.
    """
    rules = Rules.preset(preset)
    deck = rules.deck
    cards = CardTables.of(rules)
    bonus = (cards.finish_points < 0) & (cards.draw == 0) & ~cards.skip  # the queens
    plain = (cards.finish_points == 0) & ~cards.cover
    can_finish = ~cards.cover | cards.cover_can_finish
    seen = {"greedy_card": 0, "greedy_order": 0, "expert_finish": 0, "expert_keep": 0}

    def check(state, live, obs, masks, chosen):
        _random, greedy, expert = chosen
        view = ObservationView(obs, rules.target, rules.deck)
        hand = view.hand
        phase = state.phase[live]
        card_legal = masks[:, : deck.cards] > 0
        any_card = card_legal.any(axis=1)
        # Greedy: a card whenever one is legal, and one of the most points.
        assert (greedy[any_card] < deck.cards).all()
        rows = np.flatnonzero(any_card)
        best = np.where(card_legal[rows], cards.points[None, :], -1).max(axis=1)
        assert (cards.points[greedy[rows]] == best).all()
        seen["greedy_card"] += rows.size
        # Greedy orders a suit with the most points in hand.
        rows = np.flatnonzero(phase == ORDER)
        if rows.size:
            suit_points = (hand[rows] * cards.points).reshape(-1, deck.suits, deck.ranks)
            suit_points = suit_points.sum(axis=2)
            picked = suit_points[np.arange(rows.size), greedy[rows] - deck.order_base]
            assert (picked == suit_points.max(axis=1)).all()
            seen["greedy_order"] += rows.size
        # Expert: no voluntary draw in PLAY while a card is legal.
        rows = np.flatnonzero((phase == PLAY) & any_card & (masks[:, deck.draw] > 0))
        assert (expert[rows] != deck.draw).all()
        # Expert finishes when it can.
        size = hand.sum(axis=1)
        for row in np.flatnonzero(size == 1):
            last = int(np.flatnonzero(hand[row])[0])
            if card_legal[row, last] and can_finish[last]:
                assert expert[row] == last, f"expert did not finish on {last}"
                seen["expert_finish"] += 1
        # Expert keeps bonus cards while plain cards can go (away from the target).
        points = hand @ cards.points
        calm = view.own_total + points <= rules.target - cards.points.max()
        rows = np.flatnonzero(calm & (size > 1) & (card_legal & plain[None, :]).any(axis=1))
        played = expert[rows]
        is_card = played < deck.cards
        assert not bonus[played[is_card]].any(), "expert played a bonus card too early"
        seen["expert_keep"] += int((card_legal[rows] & bonus[None, :]).any(axis=1).sum())

    # Thousands of decisions: more games where matches are short (micro: six decisions).
    batch = 24 * max(1, 150 // rules.max_turns)
    for players in range(rules.players[0], rules.players[1] + 1):
        bots = [RandomAgent(seed=players), GreedyAgent(rules), ExpertAgent(rules)]
        run_games(rules, players, bots, batch=batch, steps=150, seed=players, check=check)
    # The situations did occur.
    assert seen["greedy_card"] > 1000
    assert seen["greedy_order"] > 10
    assert seen["expert_finish"] > 5
    if rules.target > cards.points.max():  # micro (target 1) is never away from the target
        assert seen["expert_keep"] > 5


# --- 2. one decision, env players, opponents --------------------------------------------------


def some_decisions(preset="classic", players=3, batch=32, steps=25, seed=1):
    """Observations and masks of real mid-game decisions."""
    state = engine.init(preset, players, batch, seed=seed)
    walker = RandomAgent(seed=seed)
    for _ in range(steps):
        live = np.flatnonzero(~state.done)
        engine.step(state, walker.act(None, state.legal[live]), games=live)
    live = np.flatnonzero(~state.done)
    return observe(state, games=live), state.legal[live]


@pytest.mark.parametrize("preset", PRESETS)
def test_single_decision_equals_batched_row(preset):
    rules = Rules.preset(preset)
    # A seat count and a walk every rule set allows: micro seats two and cuts a round after
    # six decisions, so its games are still live after two random steps, not after 25.
    players = min(3, rules.players[1])
    obs, masks = some_decisions(preset, players, steps=min(25, rules.max_turns // 3))
    assert len(obs) >= 8  # decisions to compare, not an empty batch
    for agent in (GreedyAgent(preset), ExpertAgent(preset)):
        batched = agent.act(obs, masks)
        single = [agent(o, m) for o, m in zip(obs, masks, strict=True)]
        assert all(type(a) is int for a in single)
        assert single == batched.tolist(), type(agent).__name__
    for agent in (RandomAgent(seed=0), RolloutAgent(preset, samples=2, horizon=4)):
        for o, m in list(zip(obs, masks, strict=True))[:6]:
            action = agent(o, m)
            assert type(action) is int and m[action] == 1


def test_single_decision_of_random_and_rollout_repeats_under_a_seed():
    obs, masks = some_decisions()
    for make in (lambda: RandomAgent(seed=4), lambda: RolloutAgent(samples=2, horizon=4, seed=4)):
        first, second = make(), make()
        a = [first(o, m) for o, m in zip(obs[:8], masks[:8], strict=True)]
        b = [second(o, m) for o, m in zip(obs[:8], masks[:8], strict=True)]
        assert a == b


@pytest.mark.parametrize(
    ("preset", "players"), [("classic", 2), ("yard", 3), ("encyclopedia", 4), ("nines", 4)]
)
def test_bots_play_a_whole_aec_match(preset, players):
    env = sto_odno_v0.env(rules=preset, players=players, illegal_action="raise")
    env.reset(seed=players)
    rules = Rules.preset(preset)
    pool = [
        ExpertAgent(rules, players),
        GreedyAgent(rules, players),
        RandomAgent(seed=1),
        agents.load("rollout:samples=2,horizon=3", rules, players),
    ]
    seat_bot = {agent: pool[i % len(pool)] for i, agent in enumerate(env.possible_agents)}
    decisions = 0
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(max_iter=20_000):
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        action = seat_bot[agent](obs["observation"], obs["action_mask"])
        assert type(action) is int and obs["action_mask"][action] == 1
        env.step(action)
        decisions += 1
    assert not env.agents, "the match did not end"
    assert decisions > 10
    raw = env.unwrapped.engine_state()
    if not raw.truncated[0]:
        assert sum(totals.values()) == pytest.approx(0.0, abs=1e-6)


def test_bots_are_opponents_in_the_single_agent_env():
    rules = Rules.preset("classic")
    env = StoOdnoEnv(
        rules, players=3, opponents=[ExpertAgent(rules), agents.load("greedy", rules, 3)]
    )
    learner = GreedyAgent(rules)
    obs, info = env.reset(seed=3)
    episodes, steps = 0, 0
    while episodes < 2 and steps < 5000:
        action = learner(obs, info["action_mask"])
        assert info["action_mask"][action] == 1
        obs, _, terminated, truncated, info = env.step(action)
        steps += 1
        if terminated or truncated:
            episodes += 1
            obs, info = env.reset(seed=3 + episodes)
    assert episodes == 2


@pytest.mark.parametrize(
    "opponent",
    [
        lambda rules: RandomAgent(seed=2),
        lambda rules: GreedyAgent(rules),
        lambda rules: ExpertAgent(rules),
        lambda rules: RolloutAgent(rules, samples=2, horizon=3),
        lambda rules: lambda o, m: ExpertAgent(rules)(o, m),  # a plain callable
    ],
    ids=["random", "greedy", "expert", "rollout", "callable"],
)
def test_bots_are_opponents_in_the_vector_env(opponent):
    rules = Rules.preset("yard")
    env = StoOdnoVectorEnv(num_envs=6, rules=rules, players=2, opponents=opponent(rules))
    learner = ExpertAgent(rules)
    obs, infos = env.reset(seed=5)
    ended = 0
    for _ in range(60):
        actions = learner.act(obs, infos["action_mask"])
        assert_legal(actions, infos["action_mask"], "learner")
        obs, rewards, terminated, truncated, infos = env.step(actions)
        assert np.isfinite(rewards).all()
        ended += int((terminated | truncated).sum())
    assert ended > 0


# --- 3. the documented strategies on hand-made situations -------------------------------------
# Two players, seat 1 deals, the opening card has no effect: seat 0 moves first.


def test_greedy_plays_the_highest_point_legal_card():
    game = Game(dealer=1, hands={0: "A♣ 10♣ J♦ K♦ 9♣", 1: "6♥ 7♥ 9♥ J♥"}, opening="10♦")
    assert game.legal() == {"play 10♣", "play J♦", "play K♦", "draw"}  # A♣ is not legal
    assert decide(GreedyAgent(), game) == c("10♣")


@pytest.mark.parametrize(
    ("rank", "same", "keep", "other"),
    [("8", 10, "8♦", "10♦"), ("Q", 4, "Q♦", "K♦")],
    ids=["cover card", "queen"],
)
def test_greedy_keeps_a_cover_card_or_queen_on_ties(rank, same, keep, other):
    """With the points changed so that the cover card (queen) ties another legal card, greedy
    plays the other card (the kept card has the lower id, so this is not the id tie-break)."""
    points = dict(Rules.preset("classic").points)
    points[rank] = same
    game = Game(
        dealer=1,
        hands={0: f"{keep} {other} 9♣ 9♠ 6♣", 1: "6♥ 7♥ 9♥ J♥"},
        opening="9♦",
        points=points,
    )
    assert {f"play {keep}", f"play {other}"} <= game.legal()
    assert c(keep) < c(other)
    assert decide(GreedyAgent(game.rules), game) == c(other)


def test_greedy_draws_only_when_it_must():
    # A 0-point 9 is still better than a voluntary draw.
    game = Game(dealer=1, hands={0: "9♦ A♣ 8♣ K♠ J♠", 1: "6♥ 7♥ 9♥ J♥"}, opening="10♦")
    assert game.legal() == {"play 9♦", "draw"}
    assert decide(GreedyAgent(), game) == c("9♦")
    # After drawing a playable card it plays it rather than pass.
    game = Game(dealer=1, hands={0: "9♦ A♣ 8♣ K♠ J♠", 1: "6♥ 7♥ 9♥ J♥"}, opening="10♦", stock="K♦")
    game.draw()
    assert game.phase == "AFTER_DRAW" and game.legal() == {"play K♦", "pass"}
    assert decide(GreedyAgent(), game) == c("K♦")


def test_greedy_orders_the_suit_with_most_points():
    # ♠ has more cards (2), ♣ more points (11).
    game = Game(dealer=1, hands={0: "Q♥ A♣ 9♦ 9♠ J♠", 1: "6♥ 7♥ 9♥ J♥"}, opening="10♦")
    game.play("Q♥")
    assert game.phase == "ORDER" and game.player == 0
    assert decide(GreedyAgent(), game) == ORDER_BASE + SUIT["♣"]


def test_expert_keeps_the_queen_of_spades_and_finishes_on_it():
    expert = ExpertAgent()
    game = Game(dealer=1, hands={0: "Q♠ J♦ 9♣ K♣ 9♥", 1: "6♥ 7♥ 9♠ J♥"}, opening="10♦")
    assert game.legal() == {"play Q♠", "play J♦", "draw"}
    assert decide(GreedyAgent(), game) == c("Q♠")  # greedy sheds the 3 points at once
    assert decide(expert, game) == c("J♦")
    # In a duel aces chain (a skip is another turn); the queen waits for the last card.
    game = Game(dealer=1, hands={0: "A♦ A♣ A♥ A♠ Q♠", 1: "6♦ 7♦ K♦ J♦"}, opening="10♦")
    played = []
    while game.player == 0 and game.last("round_end") is None:
        action = decide(expert, game)
        played.append(action)
        game.act(action)
    end = game.last("round_end")
    assert end is not None, f"no finish: played {played}, hand {game.hand(0)}"
    assert end["finisher"] == 0 and end["last_card"] == c("Q♠")
    assert played[-1] == c("Q♠") and c("Q♠") not in played[:-1]
    assert game.totals[0] == -40  # the Q♠ finishing bonus


def test_expert_does_not_play_a_cover_card_it_cannot_cover():
    expert = ExpertAgent()
    # After 8♥ nothing in hand follows it: J♣ (2 points) goes instead.
    game = Game(dealer=1, hands={0: "8♥ J♣ 7♠ K♣ 9♣", 1: "6♦ 7♦ K♦ J♦"}, opening="J♥")
    assert game.legal() == {"play 8♥", "play J♣", "draw"}
    assert decide(GreedyAgent(), game) == c("8♥")
    assert decide(expert, game) == c("J♣")
    # With the 9♥ to cover it, the 8♥ goes first (two cards in one turn).
    game = Game(dealer=1, hands={0: "8♥ J♣ 9♥ K♣ 7♠", 1: "6♦ 7♦ K♦ J♦"}, opening="J♥")
    assert decide(expert, game) == c("8♥")


def test_expert_hits_the_next_player_when_it_holds_one_card():
    expert = ExpertAgent()
    # The control: the opponent holds four cards, the coverable 8♣ goes first.
    game = Game(dealer=1, hands={0: "8♣ 6♣ 9♣ A♦ 10♥", 1: "6♦ 7♦ K♦ J♦"}, opening="J♣")
    assert {"play 8♣", "play 6♣"} <= game.legal()
    assert decide(expert, game) == c("8♣")
    # Seat 0 draws (and must pass) while seat 1 sheds down to one card.
    game = Game(
        dealer=1,
        hands={0: "8♣ 6♣ 9♣ A♦ 10♥", 1: "10♠ J♠ J♣ 7♦"},
        opening="9♠",
        stock="7♥ K♥ A♥",
    )
    game.draw()  # 7♥ is not playable on 9♠: the pass is forced
    game.play("10♠")
    game.draw()  # K♥, not playable on 10♠
    game.play("J♠")  # seat 0 holds nothing for J♠: draws A♥ and passes, all forced
    assert game.player == 1 and {"7♥", "K♥", "A♥"} <= set(game.hand(0))
    game.play("J♣")
    assert game.player == 0 and game.hand_size(1) == 1 and game.top == "J♣"
    assert {"play 8♣", "play 6♣"} <= game.legal()
    assert decide(expert, game) == c("6♣")


def test_expert_orders_a_suit_it_holds():
    game = Game(dealer=1, hands={0: "Q♥ 9♦ J♦ 9♠ K♣", 1: "6♥ 7♥ 9♥ J♥"}, opening="10♥")
    game.play("Q♥")
    assert game.phase == "ORDER"
    assert decide(ExpertAgent(), game) == ORDER_BASE + SUIT["♦"]  # 2 cards, 2 points


def test_expert_orders_its_last_cards_suit_whatever_was_discarded():
    """Classic, 3 players. Seat 0 plays Q♥ with only 9♣ left; seven spades lie in the
    discard pile. Ordering ♠ leaves seat 0 unable to follow; ♣ is the only sensible order."""
    game = Game(
        players=3,
        dealer=2,
        hands={0: "J♠ K♠ K♥ Q♥ 9♣", 1: "10♠ 8♠ 6♠ 9♥ 7♦", 2: "A♠ K♦ 10♥ J♦"},
        opening="9♠",
    )
    script = [(0, "J♠"), (1, "10♠"), (2, "A♠"), (1, "8♠"), (0, "K♠"), (2, "K♦")]
    script += [(0, "K♥"), (1, "9♥"), (2, "10♥"), (0, "Q♥")]
    for seat, card in script:  # 1's 6♠ covering its 8♠ is forced
        assert game.player == seat, (seat, card)
        game.play(card)
    assert game.phase == "ORDER" and game.player == 0 and game.hand(0) == ["9♣"]
    assert sum(card.endswith("♠") for card in game.discard) == 7
    assert decide(ExpertAgent(), game) == ORDER_BASE + SUIT["♣"]


def test_expert_finishes_when_it_can():
    expert = ExpertAgent()
    game = Game(dealer=1, hands={0: "A♦ A♣ A♥ A♠ 9♥", 1: "6♦ 7♦ K♦ J♦"}, opening="10♦")
    while game.player == 0 and game.last("round_end") is None:
        if game.hand_size(0) == 1:
            assert game.legal() == {"play 9♥", "draw"}
        game.act(decide(expert, game))
    end = game.last("round_end")
    assert end is not None and end["finisher"] == 0 and end["last_card"] == c("9♥")


# --- 4. determinism, loading, checkpoints -----------------------------------------------------


def actions_over_play(make_agent, seed=11, steps=15):
    state = engine.init("classic", 3, 6, seed=seed)
    agent = make_agent()
    taken = []
    for _ in range(steps):
        live = np.flatnonzero(~state.done)
        obs = observe(state, games=live)
        actions = np.asarray(agent.act(obs, state.legal[live]))
        taken.append(actions.tolist())
        engine.step(state, actions, games=live)
    return taken


@pytest.mark.parametrize(
    "make",
    [
        lambda seed: RandomAgent(seed=seed),
        lambda seed: RolloutAgent(samples=2, horizon=4, seed=seed),
        lambda seed: agents.load("random", seed=seed),
        lambda seed: agents.load("rollout:samples=2,horizon=4", seed=seed),
    ],
    ids=["random", "rollout", "load-random", "load-rollout"],
)
def test_same_seed_same_actions(make):
    first = actions_over_play(lambda: make(3))
    assert first == actions_over_play(lambda: make(3))
    if "Rollout" not in type(make(0)).__name__:
        assert first != actions_over_play(lambda: make(4))


def test_random_agent_reseeds():
    agent = RandomAgent(seed=1)
    obs, masks = some_decisions()
    first = agent.act(obs, masks)
    agent.seed(1)
    np.testing.assert_array_equal(agent.act(obs, masks), first)


@pytest.mark.parametrize("name", [*agents.BOTS, "rollout:samples=4,horizon=8"])
def test_load_every_name(name):
    rules = Rules.preset("ukrainian")
    agent = agents.load(name, rules, 3)
    assert isinstance(agent, BasePolicy)
    assert agent.name == name.partition(":")[0]
    if name.startswith("rollout:"):
        assert (agent.samples, agent.horizon) == (4, 8)
    obs, masks = some_decisions("ukrainian", players=3, batch=8)
    assert_legal(agent.act(obs, masks), masks, name)


def test_load_rollout_margin_and_bot_classes():
    agent = agents.load("rollout:margin=0.5,samples=3")
    assert isinstance(agent, RolloutAgent)
    assert (agent.samples, agent.horizon, agent.margin) == (3, 24, 0.5)
    assert isinstance(agents.load("expert", "yard"), ExpertAgent)
    assert agents.load("expert", "yard").rules.name == "yard"
    assert set(agents.BOTS) == {"random", "greedy", "expert", "rollout", "search"}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("minimax", "unknown agent 'minimax'; allowed: random, greedy, expert, rollout, search"),
        ("Expert", "unknown agent 'Expert'"),
        ("greedy:samples=2", "only rollout and search take parameters"),
        ("rollout:depth=3", "bad parameter 'depth=3'; allowed: samples=..., horizon=..."),
        ("rollout:samples", "bad parameter 'samples'"),
        ("rollout:samples=", "bad parameter 'samples='"),
        ("rollout:samples=x", "samples='x' is not an integer"),
        ("rollout:horizon=2.5", "horizon='2.5' is not an integer"),
        ("rollout:margin=wide", "margin='wide' is not a number"),
        ("nowhere/policy.pt", "checkpoint 'nowhere/policy.pt' does not exist"),
        ("missing.zip", "checkpoint 'missing.zip' does not exist"),
        ("runs/latest", "checkpoint 'runs/latest' does not exist"),
    ],
)
def test_load_errors_are_clear(name, message):
    with pytest.raises(AgentError) as error:
        agents.load(name)
    assert message in str(error.value)


@pytest.mark.parametrize("name", ["rollout:samples=0", "rollout:horizon=-1"])
def test_load_rejects_a_rollout_budget_below_one_with_agent_error(name):
    with pytest.raises(AgentError, match="samples and horizon must be >= 1"):
        agents.load(name)


def test_rollout_rejects_a_budget_below_one():
    with pytest.raises(ValueError, match="samples and horizon must be >= 1"):
        RolloutAgent(samples=0)
    with pytest.raises(ValueError, match="samples and horizon must be >= 1"):
        RolloutAgent(horizon=0)


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def test_policy_file_round_trip(tmp_path, torch):
    torch.manual_seed(0)
    network = build_network(OBS_SIZE, [32, 16], NUM_ACTIONS)
    path = tmp_path / "policy.pt"
    save_policy(path, network, [32, 16], rules=Rules.preset("classic").to_dict())
    agent = agents.load(str(path))
    assert isinstance(agent, TorchPolicyAgent) and agent.path == str(path)
    obs, masks = some_decisions("classic", players=2, batch=16)
    actions = agent.act(obs, masks)
    assert_legal(actions, masks, "policy file")
    # The same weights, the same greedy choice over the legal logits.
    with torch.no_grad():
        logits = network(torch.as_tensor(obs)).numpy()
    np.testing.assert_array_equal(actions, np.where(masks > 0, logits, -np.inf).argmax(axis=1))
    assert [agent(o, m) for o, m in zip(obs, masks, strict=True)] == actions.tolist()
    # A file trained for classic is refused for other rules; one that names no rules
    # loads with any, and plays a seat in a match.
    with pytest.raises(agents.AgentError, match="trained for rules 'classic', not 'yard'"):
        agents.load(str(path), "yard", 4)
    save_policy(path, network, [32, 16])
    agent = agents.load(str(path), "yard", 4)
    run_games("yard", 4, [agent, ExpertAgent("yard")], batch=4, steps=20, seed=0)


def test_a_policy_file_with_its_critic_gives_the_critics_values(tmp_path, torch):
    from sto_odno_env.bots.checkpoint import policy_record, with_value, write_atomic

    torch.manual_seed(1)
    actor, critic = build_network(OBS_SIZE, [16], NUM_ACTIONS), build_network(OBS_SIZE, [16], 1)
    path = tmp_path / "with-critic.pt"
    write_atomic(path, with_value(policy_record(actor, [16]), critic.state_dict(), "first"))
    agent = agents.load(str(path))
    obs, _ = some_decisions("classic", players=2, batch=16)
    with torch.no_grad():
        expected = critic(torch.as_tensor(obs)).squeeze(-1).numpy()
    np.testing.assert_allclose(agent.values(obs), expected, rtol=1e-6)
    assert agent.value_reward == "first"
    # A file without a critic loads as before and says so when asked for values.
    save_policy(path, actor, [16])
    plain = agents.load(str(path))
    assert plain.value_network is None
    with pytest.raises(ValueError, match="shipped without a value network"):
        plain.values(obs)
    with pytest.raises(CheckpointError, match="value reward 'points' is unknown"):
        with_value(policy_record(actor, [16]), critic.state_dict(), "points")


def corrupt_files(tmp_path, torch):
    good = build_network(OBS_SIZE, [8], NUM_ACTIONS).state_dict()
    files = {}
    files["random bytes"] = tmp_path / "noise.pt"
    files["random bytes"].write_bytes(np.random.default_rng(0).bytes(2048))
    files["empty"] = tmp_path / "empty.pt"
    files["empty"].write_bytes(b"")
    entries = {
        "no format key": {"version": 1, "obs_size": OBS_SIZE, "state_dict": good},
        "a tensor": torch.zeros(3),
        "wrong version": {"format": "sto-odno-policy", "version": 99},
        "wrong obs size": {
            "format": "sto-odno-policy",
            "version": 1,
            "obs_size": OBS_SIZE - 1,
            "hidden": [8],
            "num_actions": NUM_ACTIONS,
            "state_dict": build_network(OBS_SIZE - 1, [8], NUM_ACTIONS).state_dict(),
        },
        "wrong weights": {
            "format": "sto-odno-policy",
            "version": 1,
            "obs_size": OBS_SIZE,
            "hidden": [16],
            "num_actions": NUM_ACTIONS,
            "state_dict": good,
        },
        "no weights": {
            "format": "sto-odno-policy",
            "version": 1,
            "obs_size": OBS_SIZE,
            "hidden": [8],
            "num_actions": NUM_ACTIONS,
        },
    }
    whole = {"format": "sto-odno-policy", "version": 2, "obs_size": OBS_SIZE, "hidden": [8],
             "num_actions": NUM_ACTIONS, "state_dict": good}  # fmt: skip
    critic = build_network(OBS_SIZE, [8], 1).state_dict()
    entries["unknown value reward"] = {**whole, "value_state_dict": critic, "value_reward": "x"}
    entries["wrong value weights"] = {**whole, "value_state_dict": good, "value_reward": "first"}
    for key, value in entries.items():
        files[key] = tmp_path / (key.replace(" ", "_") + ".pt")
        torch.save(value, files[key])
    files["a pickled module"] = tmp_path / "module.pt"
    torch.save(build_network(OBS_SIZE, [8], NUM_ACTIONS), files["a pickled module"])
    return files


EXPECTED = {
    "random bytes": "is not a readable torch file",
    "empty": "is not a readable torch file",
    "a pickled module": "holds Python objects (torch.nn.modules.container.Sequential), which"
    " are never loaded",
    "no format key": "is not a policy or checkpoint of this kit: it holds no 'format' entry",
    "a tensor": "is not a policy or checkpoint of this kit: it holds a Tensor",
    "wrong version": "has version 99; allowed: 1, 2",
    "wrong obs size": f"trained for observations of {OBS_SIZE - 1} and {NUM_ACTIONS} actions",
    "wrong weights": "has weights that do not fit its network",
    "no weights": "has weights missing ('state_dict')",
    "unknown value reward": "has value reward 'x'; allowed: match, round, first",
    "wrong value weights": "has value weights that do not fit its network",
}


def test_corrupt_policy_files_give_clear_errors(tmp_path, torch):
    for key, path in corrupt_files(tmp_path, torch).items():
        with pytest.raises(CheckpointError) as error:
            load_checkpoint(path)
        assert EXPECTED[key] in str(error.value), key
        assert str(path) in str(error.value)
        # one line of the kit's own, never torch's advice to load with weights_only=False
        assert "\n" not in str(error.value) and "weights_only" not in str(error.value)
        with pytest.raises(AgentError) as error:
            agents.load(str(path))
        assert EXPECTED[key] in str(error.value), key
    with pytest.raises(CheckpointError, match="does not exist"):
        load_checkpoint(tmp_path / "absent.pt")
    with pytest.raises(CheckpointError, match="is a directory, not a file"):
        load_checkpoint(tmp_path)  # a directory is not a file


def test_maskable_ppo_zip_loads_and_acts_legally(tmp_path):
    pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sto_odno_env.envs.sb3 import StoOdnoVecEnv

    vec_env = StoOdnoVecEnv(num_envs=8, seed=0)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        vec_env,
        n_steps=32,
        batch_size=64,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [32]},
    )
    model.learn(256)
    path = tmp_path / "maskable.zip"
    model.save(path)
    agent = agents.load(str(path), "classic", 2)
    assert isinstance(agent, SB3PolicyAgent)
    obs, masks = some_decisions("classic", players=2, batch=32)
    actions = agent.act(obs, masks)
    assert_legal(actions, masks, "MaskablePPO")
    assert [agent(o, m) for o, m in zip(obs, masks, strict=True)] == actions.tolist()
    run_games("classic", 2, [agent, RandomAgent(seed=0)], batch=8, steps=30, seed=2)
    # A zip that is no model.
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"PK not really a zip")
    with pytest.raises(AgentError, match="is not a MaskablePPO or PPO zip"):
        agents.load(str(junk))


def test_plain_ppo_zip_acts_legally(tmp_path):
    pytest.importorskip("torch")
    from stable_baselines3 import PPO

    from sto_odno_env.envs.sb3 import StoOdnoVecEnv

    vec_env = StoOdnoVecEnv(num_envs=4, illegal_action="penalize", seed=0)
    path = tmp_path / "ppo.zip"
    PPO("MlpPolicy", vec_env, n_steps=16, batch_size=16, seed=0, device="cpu").save(path)
    agent = agents.load(str(path))
    obs, masks = some_decisions("classic", players=2, batch=32)
    assert_legal(agent.act(obs, masks), masks, "PPO")


def test_sb3_zip_of_another_env_is_rejected_when_loaded(tmp_path):
    pytest.importorskip("torch")
    from stable_baselines3 import PPO

    path = tmp_path / "cartpole.zip"
    PPO("MlpPolicy", "CartPole-v1", n_steps=16, batch_size=16, device="cpu").save(path)
    with pytest.raises(CheckpointError, match="observation"):
        load_checkpoint(path)


def test_expert_weights_are_configurable():
    expert = ExpertAgent("classic", uncoverable=20.0)
    game = Game(dealer=1, hands={0: "8♥ J♣ 7♠ K♣ 9♣", 1: "6♦ 7♦ K♦ J♦"}, opening="J♥")
    assert decide(expert, game) == c("8♥")  # the penalty for an uncoverable 8 turned around
    with pytest.raises(TypeError):
        ExpertAgent("classic", no_such_weight=1.0)


def test_needs_observation_flags():
    assert RandomAgent().needs_observation is False
    assert RandomAgent().act(None, np.eye(NUM_ACTIONS, dtype=np.int8)[[DRAW, PASS]]).tolist() == [
        DRAW,
        PASS,
    ]
    for agent in (GreedyAgent(), ExpertAgent(), RolloutAgent(samples=1, horizon=1)):
        assert agent.needs_observation is True
