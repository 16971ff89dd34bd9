"""Behaviour fingerprint of the engine and envs: one hash per (rules, players, surface).

Run before and after a refactor that must not change behaviour; the outputs must match
line for line::

    python scripts/fingerprint.py > /tmp/fingerprint_before.txt
    ... refactor ...
    python scripts/fingerprint.py | diff /tmp/fingerprint_before.txt -

Each line hashes, over a few hundred seeded random steps with auto-reset:

* ``engine``: every State array, observations of the player to act, masks, rewards and
  done flags after each step, and the record events the trace collected;
* ``record``: the JSON Lines bytes :func:`sto_odno_env.records.record.write_records` writes;
* ``learner``: LearnerGames steps (random opponents through the engine's autoplay, and
  opponents that read observations), reward="round", illegal_action="penalize";
* ``vector``: StoOdnoVectorEnv and the sb3 StoOdnoVecEnv (one process);
* ``aec``: the PettingZoo env, one decision at a time;
* ``determinise``: states built from observations.

Only public entry points are used, so the script runs on any version of the package.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import io
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from sto_odno_env.game import engine
from sto_odno_env.game.rules import PRESETS, Rules
from sto_odno_env.records.record import play_random_matches, write_records
from sto_odno_env.views.observation import observe

STEPS = 300
BATCH = 12


def variants() -> list[tuple[str, Rules]]:
    """The rule sets fingerprinted: the full-deck presets, then variants that switch on the
    optional rules the tests use (stacking, steals, until_playable, flips, ...). A
    small-deck preset (``micro``) is checked instead through its whole tree
    (tests/test_exact.py: its values against OpenSpiel's, ``cfr-micro`` still exact)."""
    classic = Rules.preset("classic")
    full = [name for name in PRESETS if Rules.preset(name).deck.full]
    sets = [(name, Rules.preset(name)) for name in full]
    sets += [
        ("classic+stacking", classic.replace(stacking=True)),
        ("classic+steal", classic.replace(empty_stock="steal")),
        (
            "classic+until_playable+any_card",
            classic.replace(draw_rule="until_playable", after_draw="any_card"),
        ),
        ("classic+max_turns30", classic.replace(max_turns=30)),
        ("classic+target30+no_voluntary", classic.replace(target=30, voluntary_draw=False)),
        (
            "classic+flip+leader_plays+first_loser",
            classic.replace(reshuffle="flip", opening="leader_plays", match_end="first_loser"),
        ),
        (
            "ukrainian+stacking+last_card_effects",
            Rules.preset("ukrainian").replace(stacking=True, last_card_effects=True),
        ),
        (
            "yard+stacking+cover_can_finish",
            Rules.preset("yard").replace(stacking=True, cover_can_finish=True),
        ),
        ("nines+steal+target40", Rules.preset("nines").replace(empty_stock="steal", target=40)),
        ("encyclopedia+target60", Rules.preset("encyclopedia").replace(target=60)),
    ]
    return sets


class Hasher:
    def __init__(self) -> None:
        self.digest = hashlib.sha256()

    def array(self, value: np.ndarray) -> None:
        value = np.ascontiguousarray(value)
        self.digest.update(f"{value.dtype}{value.shape}".encode())
        self.digest.update(value.tobytes())

    def json(self, value) -> None:
        self.digest.update(json.dumps(value, sort_keys=True, ensure_ascii=False).encode())

    def hexdigest(self) -> str:
        return self.digest.hexdigest()[:16]


def state_arrays(state) -> list[np.ndarray]:
    return [
        getattr(state, field.name)
        for field in dataclasses.fields(state)
        if isinstance(getattr(state, field.name), np.ndarray)
    ]


def engine_hash(rules: Rules, players: int, seed: int) -> str:
    hasher = Hasher()
    trace = engine.Trace(BATCH)
    state = engine.init(rules, players, BATCH, seed=seed, trace=trace)
    generator = np.random.default_rng(seed)
    for _ in range(STEPS):
        actions = engine.sample_actions(state.legal_bits, generator.random(BATCH))
        _, rewards, done = engine.step(state, actions, auto_reset=True, trace=trace)
        for array in state_arrays(state):
            hasher.array(array)
        hasher.array(observe(state))
        hasher.array(engine.legal_mask(state))
        hasher.array(rewards)
        hasher.array(done)
    # A step on a sub-batch, with forced decisions left unresolved, and a reset of some games.
    games = np.arange(0, BATCH, 2)
    actions = engine.sample_actions(state.legal_bits[games], generator.random(games.size))
    engine.step(state, actions, games=games, trace=trace, resolve_forced=False)
    engine.reset_games(state, np.arange(1, BATCH, 3), trace=trace)
    for array in state_arrays(state):
        hasher.array(array)
    hasher.json(trace.matches)
    hasher.json(trace.current)
    return hasher.hexdigest()


def record_hash(rules: Rules, players: int, seed: int) -> str:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "records.jsonl"
        write_records(path, play_random_matches(rules, players, 3, seed))
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def first_legal(observation: np.ndarray, mask: np.ndarray) -> int:
    """An opponent that reads the observation (so the learner's non-autoplay path runs)."""
    legal = np.flatnonzero(mask)
    return int(legal[int(observation.sum() * 7) % legal.size])


def learner_hash(rules: Rules, players: int, seed: int) -> str:
    from sto_odno_env.envs.learner import LearnerGames

    hasher = Hasher()
    for options in (
        {},
        {"opponents": first_legal, "reward": "round"},
        {"illegal_action": "penalize", "learner_seat": players - 1},
    ):
        games = LearnerGames(rules=rules, players=players, batch=BATCH, **options)
        generator = np.random.default_rng(seed)
        hasher.array(games.reset(seed=seed))
        for _ in range(STEPS // 3):
            actions = engine.sample_actions(games.legal_bits, generator.random(BATCH))
            if options.get("illegal_action") == "penalize":
                wrong = generator.random(BATCH) < 0.02
                actions = np.where(wrong, 41 - actions % 2, actions)
                actions = np.where(games.masks()[np.arange(BATCH), actions] > 0, actions, 40)
                actions[wrong & (generator.random(BATCH) < 0.5)] = 99
            result = games.step(actions)
            for key in ("observation", "reward", "terminated", "truncated", "illegal"):
                hasher.array(result[key])
            if result["final_observation"] is not None:
                hasher.array(result["final_observation"])
            hasher.array(games.masks())
            hasher.array(games.learner)
            for array in state_arrays(games.state):
                hasher.array(array)
    return hasher.hexdigest()


def vector_hash(rules: Rules, players: int, seed: int) -> str:
    from sto_odno_env.envs.gym_env import StoOdnoVectorEnv
    from sto_odno_env.envs.sb3 import StoOdnoVecEnv

    hasher = Hasher()
    env = StoOdnoVectorEnv(num_envs=BATCH, rules=rules, players=players)
    generator = np.random.default_rng(seed)
    observations, infos = env.reset(seed=seed)
    hasher.array(observations)
    for _ in range(STEPS // 3):
        actions = engine.sample_actions(env.games.legal_bits, generator.random(BATCH))
        observations, rewards, terminated, truncated, infos = env.step(actions)
        for array in (observations, rewards, terminated, truncated, infos["action_mask"]):
            hasher.array(array)
        if "final_obs" in infos:
            hasher.array(infos["final_obs"])
    env.close()
    vec = StoOdnoVecEnv(num_envs=BATCH, rules=rules, players=players, seed=seed, reward="round")
    hasher.array(vec.reset())
    for _ in range(STEPS // 3):
        actions = engine.sample_actions(vec.games.legal_bits, generator.random(BATCH))
        vec.step_async(actions)
        observations, rewards, dones, infos = vec.step_wait()
        for array in (observations, rewards, dones, vec.action_masks()):
            hasher.array(array)
        hasher.json([sorted(info) for info in infos])
    vec.close()
    return hasher.hexdigest()


def aec_hash(rules: Rules, players: int, seed: int) -> str:
    from sto_odno_env import sto_odno_v0

    hasher = Hasher()
    env = sto_odno_v0.env(
        rules=rules, players=players, reward="round", record=True, illegal_action="raise"
    )
    generator = np.random.default_rng(seed)
    env.reset(seed=seed)
    for turn, agent in enumerate(env.agent_iter()):
        if turn >= STEPS:
            break
        observation, reward, terminated, truncated, _info = env.last()
        hasher.array(observation["observation"])
        hasher.array(observation["action_mask"])
        hasher.json([agent, reward, terminated, truncated])
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[int(generator.integers(legal.size))]))
    hasher.json(env.unwrapped.record())
    return hasher.hexdigest()


def determinise_hash(rules: Rules, players: int, seed: int) -> str:
    from sto_odno_env.views.determinise import from_observations

    state = engine.init(rules, players, BATCH, seed=seed)
    generator = np.random.default_rng(seed)
    for _ in range(20):
        actions = engine.sample_actions(state.legal_bits, generator.random(BATCH))
        engine.step(state, actions, auto_reset=True)
    samples = from_observations(rules, observe(state), samples=2, seed=seed)
    hasher = Hasher()
    for array in state_arrays(samples):
        hasher.array(array)
    return hasher.hexdigest()


SURFACES = {
    "engine": engine_hash,
    "record": record_hash,
    "learner": learner_hash,
    "vector": vector_hash,
    "aec": aec_hash,
    "determinise": determinise_hash,
}
# The envs are thin layers: two player counts per rule set cover them.
ENV_SURFACES = ("learner", "vector", "aec", "determinise")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="substring of the rule-set names to run")
    args = parser.parse_args(argv)
    out = io.StringIO()
    for index, (name, rules) in enumerate(variants()):
        if args.only and args.only not in name:
            continue
        low, high = rules.players
        for players in range(low, high + 1):
            seed = 1000 * index + players
            for surface, function in SURFACES.items():
                if surface in ENV_SURFACES and players not in (low, min(low + 2, high)):
                    continue
                line = f"{name} {players}p {surface} {function(rules, players, seed)}"
                print(line, flush=True)
                out.write(line + "\n")
    print("all", hashlib.sha256(out.getvalue().encode()).hexdigest()[:16])
    return 0


if __name__ == "__main__":
    sys.exit(main())
