"""Throughput benchmark: ``python -m sto_odno_env.bench [--seconds S] [--quick]``.

Prints tables of medians over repeats, with the peer systems measured in the same run:

* engine: uniformly random legal play on the classic preset, the observation and the mask
  of the player to act computed every step, at batch 1, 64, 1024 and 8192, 2 and 4 players.
  *Decisions* are the agents' decisions (forced ones, which the engine resolves itself,
  are not counted); matches/s counts finished matches; bytes of state per game.
* OpenSpiel ``crazy_eights`` (2 players, random legal actions, observation tensor each
  step) when ``open_spiel`` is installed; every non-chance action counts as a decision.
* PettingZoo AEC env turns/s in the ``agent_iter()`` loop, and shimmy's OpenSpiel
  ``crazy_eights`` AEC env, when installed; the vector env with batched random opponents.

Speed is machine-dependent and the machines here are shared: compare ratios within one run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

from . import engine
from .observation import observe


def _measure(run: Callable[[float], tuple[int, int]], seconds: float, repeats: int):
    """Median rates (per second) of ``run(seconds) -> (decisions, matches)`` over repeats."""
    decision_rates, match_rates = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        decisions, matches = run(seconds)
        elapsed = time.perf_counter() - start
        decision_rates.append(decisions / elapsed)
        match_rates.append(matches / elapsed)
    return statistics.median(decision_rates), statistics.median(match_rates)


def engine_run(rules: str, players: int, batch: int, seed: int = 0):
    """A closure playing random legal decisions in the batched engine for some seconds."""
    state = engine.init(rules, players, batch, seed=seed)
    generator = np.random.default_rng(seed)
    out = np.zeros((batch, observe(state).shape[1]), dtype=np.float32)
    chunk = max(1, 4096 // batch)

    def run(seconds: float) -> tuple[int, int]:
        decisions = 0
        matches_before = int(state.matches_played.sum())
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            for _ in range(chunk):
                observe(state, out=out)
                mask = engine.legal_mask(state)
                actions = engine.sample_actions(state.legal_bits, generator.random(batch))
                engine.step(state, actions, auto_reset=True)
                decisions += batch
            del mask
        return decisions, int(state.matches_played.sum()) - matches_before

    return run, state


def openspiel_run(seed: int = 0):
    """Random legal play of OpenSpiel crazy_eights with the observation tensor each step."""
    import pyspiel

    game = pyspiel.load_game("crazy_eights")
    generator = np.random.default_rng(seed)

    def run(seconds: float) -> tuple[int, int]:
        decisions = matches = 0
        deadline = time.perf_counter() + seconds
        state = game.new_initial_state()
        while time.perf_counter() < deadline:
            if state.is_terminal():
                matches += 1
                state = game.new_initial_state()
            elif state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(outcomes[generator.choice(len(outcomes), p=probs)])
            else:
                state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[generator.integers(len(legal))])
                decisions += 1
        return decisions, matches

    return run


def _row(cells: list[str], widths: list[int]) -> str:
    return "| " + " | ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)) + " |"


def print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print(_row(header, widths))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print(_row(row, widths))


def engine_section(batches, player_counts, seconds, repeats) -> dict:
    rows, results = [], {}
    for players in player_counts:
        for batch in batches:
            run, state = engine_run("classic", players, batch)
            run(min(0.2, seconds))  # warm up
            decisions, matches = _measure(run, seconds, repeats)
            results[(players, batch)] = decisions
            rows.append(
                [
                    "classic",
                    str(players),
                    str(batch),
                    f"{decisions:,.0f}",
                    f"{matches:,.1f}",
                    str(state.nbytes_per_game()),
                ]
            )
    print("\n## Engine: random legal play, observation + mask every step (one core)\n")
    print_table(["preset", "players", "batch", "decisions/s", "matches/s", "state B/game"], rows)
    return results


def openspiel_section(seconds, repeats) -> float | None:
    try:
        run = openspiel_run()
    except ImportError:
        print("\n(open_spiel not installed: `pip install -e .[bench]` to compare)")
        return None
    run(min(0.2, seconds))
    decisions, matches = _measure(run, seconds, repeats)
    print("\n## OpenSpiel crazy_eights (2 players, random legal, observation tensor)\n")
    print_table(
        ["system", "decisions/s", "matches/s"],
        [["open_spiel crazy_eights", f"{decisions:,.0f}", f"{matches:,.1f}"]],
    )
    return decisions


EXTRA_SECTIONS: list[Callable[[float, int, bool], None]] = []


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="sto-odno throughput benchmark")
    parser.add_argument("--seconds", type=float, default=1.5, help="per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="median over repeats")
    parser.add_argument("--quick", action="store_true", help="short run (CI smoke)")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.repeats = 0.2, 1
    results = engine_section([1, 64, 1024, 8192], [2, 4], args.seconds, args.repeats)
    spiel = openspiel_section(args.seconds, args.repeats)
    if spiel:
        ratio = results[(2, 8192)] / spiel
        print(
            f"\nengine (2 players, batch 8192) / OpenSpiel crazy_eights: {ratio:.1f}x "
            "decisions/s (target >= 20x)"
        )
    for section in EXTRA_SECTIONS:
        section(args.seconds, args.repeats, args.quick)


if __name__ == "__main__":
    main()
