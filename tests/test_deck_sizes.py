"""Every size follows the rule set (docs/rules.md §12): with ``deck: 52`` an illegal action
is named with the 52-card ids and the message lists every legal id, in the AEC env, the
process-sharded games and the replayer; SB3 zips are checked against the sizes of the
rules, not the classic 189 and 42."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from sto_odno_env.game import engine
from sto_odno_env.game.cards import action_name, deck_of
from sto_odno_env.game.rules import Rules
from sto_odno_env.records.replay import RecordError, replay_lines
from sto_odno_env.views.observation import observe

DECK52 = Rules.preset("classic").replace(deck=52)
RECORD52 = Path(__file__).resolve().parent / "data/records/variants/classic-3p-deck52.jsonl"


def listed_ids(message: str) -> list[int]:
    """The ids after "legal actions:" in an illegal-action message."""
    return [int(i) for i in re.findall(r"(\d+) \(", message.split("legal actions:", 1)[1])]


def check_message(message: str, action: int, legal: np.ndarray) -> None:
    """The message names ``action`` and every legal id as ids of the 52-card deck."""
    deck = deck_of(52)
    assert f"illegal action {action} ({action_name(action, deck)})" in message, message
    assert listed_ids(message) == np.flatnonzero(legal).tolist(), message
    for a in np.flatnonzero(legal):
        assert f"{a} ({action_name(int(a), deck)})" in message


def an_illegal_card(mask: np.ndarray) -> int:
    """A card id of the 52-card deck that is not legal now (one of 2 to 5 if any is)."""
    return int(next(a for a in range(52) if not mask[a]))


def test_the_aec_env_names_52_card_ids_in_an_illegal_action() -> None:
    pytest.importorskip("pettingzoo")
    from sto_odno_env import sto_odno_v0

    env = sto_odno_v0.env(rules=DECK52, players=3, illegal_action="raise")
    env.reset(seed=4)
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask.shape == (DECK52.num_actions,) == (58,)
    assert mask[52:].any()  # a draw, pass or order id above 41 is legal: listed too
    action = an_illegal_card(mask)
    with pytest.raises(engine.IllegalActionError) as raised:
        env.step(action)
    check_message(str(raised.value), action, mask)

    penalized = sto_odno_v0.env(rules=DECK52, players=3, illegal_action="penalize")
    penalized.reset(seed=4)
    agent = penalized.agent_selection
    penalized.step(action)
    check_message(penalized.infos[agent]["illegal_action"], action, mask)


def test_the_sharded_games_name_52_card_ids_in_an_illegal_action() -> None:
    from sto_odno_env.envs.sharded import ShardedLearnerGames

    games = ShardedLearnerGames(DECK52, 2, batch=2, seed=1, workers=2)
    try:
        games.reset(seed=1)
        masks = games.masks()
        assert masks.shape == (2, 58)
        actions = masks.argmax(axis=1)
        actions[1] = an_illegal_card(masks[1])
        with pytest.raises(engine.IllegalActionError) as raised:
            games.step(actions)
        assert "in game 1" in str(raised.value)
        check_message(str(raised.value), int(actions[1]), masks[1])
    finally:
        games.close()


def test_the_replayer_names_52_card_ids_in_an_illegal_action() -> None:
    lines = RECORD52.read_text(encoding="utf-8").splitlines()
    number, event = next(
        (n, json.loads(line))
        for n, line in enumerate(lines)
        if '"type": "action"' in line and json.loads(line)["action"] < 52
    )
    event["action"] = deck_of(52).order_base  # ordering a suit with no queen played
    lines[number] = json.dumps(event, ensure_ascii=False)
    with pytest.raises(RecordError) as raised:
        replay_lines(RECORD52.name, lines)
    message = str(raised.value)
    assert "illegal action 52 (order ♠)" in message, message  # 36-card ids: no action
    deck = deck_of(52)
    assert listed_ids(message)
    for a in listed_ids(message):
        assert f"{a} ({action_name(a, deck)})" in message, message


@pytest.mark.slow  # builds an SB3 model (torch)
def test_an_sb3_zip_is_checked_against_the_sizes_of_its_rules(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from agents import load
    from sto_odno_env.bots.checkpoint import SB3PolicyAgent
    from sto_odno_env.bots.registry import AgentError
    from sto_odno_env.envs.sb3 import StoOdnoVecEnv

    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        StoOdnoVecEnv(num_envs=2, rules=DECK52, players=2, seed=0),
        n_steps=8,
        batch_size=16,
        device="cpu",
        policy_kwargs={"net_arch": [8]},
    )
    path = tmp_path / "deck52.zip"
    model.save(path)
    agent = load(str(path), DECK52, 2)
    assert isinstance(agent, SB3PolicyAgent)
    state = engine.init(DECK52, 2, 4, seed=0)
    actions = agent.act(observe(state), engine.legal_mask(state))
    assert engine.is_legal(state.legal_bits, actions).all()
    with pytest.raises(AgentError, match=r"observations \(253,\) and 58 actions.*\(189,\) and 42"):
        load(str(path), "classic", 2)
