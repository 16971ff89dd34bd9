"""python_sto_odno's random play-outs beside OpenSpiel's own games, in one run.

``python scripts/openspiel_bench.py [--seconds S] [--repeats R] [--profile N]
[--rules classic] [--players 2] [--rounds 0] [--kit DIR]``

Every game plays uniformly random play-outs through OpenSpiel's State API (``legal_actions``
or ``chance_outcomes``, then ``apply_action``; a new initial state when one ends), in one
loop shared by all of them, so the loop's own cost is the same for each. The games take
turns: each repeat gives every game about ``--seconds``, and a figure is the median over
the repeats, so a busy machine slows them alike; read the ratios, which are taken within
one run. The peers are OpenSpiel's Python ``python_kuhn_poker`` and ``python_liars_poker``
and its C++ ``crazy_eights``.

``--kit DIR`` imports ``sto_odno_env`` from DIR instead (an export of another commit, say
``git archive COMMIT sto_odno_env | tar -x -C DIR``), to compare two versions of the
adapter by their ratios to the same peers.

``--profile N`` then runs N random actions of python_sto_odno under cProfile and prints
where an action's time goes: the engine's step, the state copy it runs on, and the adapter
around them (chance bookkeeping, the State API).

This lives in ``scripts/`` rather than the kit's ``bench`` command: the apps floor does not
import the interop packages (docs/architecture.md), a script may.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyspiel

PEERS = [
    ("python_kuhn_poker", {}),
    ("python_liars_poker", {}),
    ("crazy_eights", {}),
]


def play(game, seconds: float, rng: random.Random) -> tuple[int, int, int, float]:
    """Random play-outs for ``seconds``: (decisions, chance outcomes, games ended, elapsed)."""
    decisions = chances = ended = 0
    state = game.new_initial_state()
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        # The clock is read every 64 actions: reading it every action would cost more
        # than kuhn poker's own step.
        for _ in range(64):
            if state.is_terminal():
                ended += 1
                state = game.new_initial_state()
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probabilities)[0])
                chances += 1
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                decisions += 1
        now = time.perf_counter()
        if now >= deadline:
            return decisions, chances, ended, now - start


def measure(games: dict, seconds: float, repeats: int, seed: int) -> dict[str, list[float]]:
    """Median (actions/s, decisions/s, chance outcomes/s, games/s) of every game."""
    rates: dict[str, list[list[float]]] = {name: [] for name in games}
    rng = random.Random(seed)
    for _ in range(repeats):
        for name, game in games.items():  # interleaved: load changes hit every game alike
            decisions, chances, ended, elapsed = play(game, seconds, rng)
            rates[name].append(
                [
                    (decisions + chances) / elapsed,
                    decisions / elapsed,
                    chances / elapsed,
                    ended / elapsed,
                ]
            )
    return {
        name: [statistics.median(column) for column in zip(*rows, strict=True)]
        for name, rows in rates.items()
    }


def profile(game, actions: int, seed: int) -> None:
    """Run ``actions`` random actions under cProfile and print the main costs per action."""
    rng = random.Random(seed)
    profiler = cProfile.Profile()
    state = game.new_initial_state()
    profiler.enable()
    for _ in range(actions):
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probabilities)[0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = stats.total_tt
    # Cumulative time of the functions that name the parts of an action (their callees
    # included), found by file and name in cProfile's table.
    parts = [
        ("apply_action, whole (the adapter and everything below it)", "state.py", "_apply_action"),
        ("  Match.advance: a step and its bookkeeping", "match.py", "advance"),
        ("    engine.step (validate, apply, forced decisions)", "engine.py", "step"),
        ("    State.copy (the step runs on a copy)", "core/state.py", "copy"),
        ("    LazyChance.check (the stock's drawn cards placed?)", "chance.py", "check"),
        ("    Match._place_ahead (the stock's next card)", "match.py", "_place_ahead"),
        ("legal_actions (State API, the mask's bits)", "state.py", "_legal_actions"),
        ("chance_outcomes (State API)", "state.py", "chance_outcomes"),
        ("is_chance_node / is_terminal / current_player", "state.py", "current_player"),
    ]
    found = {}
    for (filename, _, name), row in stats.stats.items():
        for label, file_part, function in parts:
            if name == function and filename.replace("\\", "/").endswith(file_part):
                cumulative = row[3]
                found[label] = max(found.get(label, 0.0), cumulative)
    print(
        f"\n## Where an action's time goes (cProfile, {actions:,} random actions of "
        f"python_sto_odno, {1e6 * total / actions:.0f} us per action under the profiler)\n"
    )
    print("| part (cumulative: its callees included) | us/action | share |")
    print("|---|---|---|")
    for label, _, _ in parts:
        seconds = found.get(label, 0.0)
        print(f"| {label} | {1e6 * seconds / actions:.1f} | {seconds / total:.0%} |")
    print("\nTop 12 functions by own time:\n")
    stats.sort_stats("tottime").print_stats(12)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=0, help="0: whole matches")
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kit", help="import sto_odno_env from this folder")
    args = parser.parse_args(argv)
    if args.kit:
        sys.path.insert(0, str(Path(args.kit).resolve()))

    import open_spiel.python.games  # noqa: F401  (registers OpenSpiel's Python games)

    import sto_odno_env.interop.openspiel  # noqa: F401  (registers python_sto_odno)

    params = {"rules": args.rules, "players": args.players}
    if args.rounds:
        params["rounds"] = args.rounds
    ours = f"python_sto_odno({args.rules}, {args.players}p" + (
        f", rounds={args.rounds})" if args.rounds else ")"
    )
    games = {ours: pyspiel.load_game("python_sto_odno", params)}
    for name, peer_params in PEERS:
        games[name] = pyspiel.load_game(name, peer_params)
    rates = measure(games, args.seconds, args.repeats, args.seed)
    print(
        f"Random play-outs through OpenSpiel's State API, {args.repeats} repeats of "
        f"{args.seconds:g} s per game, interleaved; medians\n"
    )
    print("| game | actions/s | decisions/s | chance outcomes/s | games/s |")
    print("|---|---|---|---|---|")
    for name, (actions, decisions, chances, ended) in rates.items():
        print(f"| {name} | {actions:,.0f} | {decisions:,.0f} | {chances:,.0f} | {ended:,.1f} |")
    mine = rates[ours][0]
    print()
    for name, _ in PEERS:
        print(f"{ours} / {name}: {mine / rates[name][0]:.3f}x actions/s")
    if args.profile:
        profile(games[ours], args.profile, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
