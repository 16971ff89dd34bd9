"""Throughput benchmark: ``python -m sto_odno_env.bench [--seconds S] [--quick]``.

Prints tables of medians over repeats, with the peer systems measured in the same run:

* engine: uniformly random legal play on the classic preset, the observation and the mask
  of the player to act computed every step, at batch 1, 64, 1024 and 8192, 2 and 4 players.
  *Decisions* are the agents' decisions (forced ones, which the engine resolves itself,
  are not counted); matches/s counts finished matches; bytes of state per game.
* OpenSpiel ``crazy_eights`` (2 players, random legal actions, observation tensor each
  step) when ``open_spiel`` is installed; every non-chance action counts as a decision.
* PettingZoo AEC env turns/s in the ``agent_iter()`` loop, and shimmy's OpenSpiel
  ``crazy_eights`` AEC env, when installed; the vector env with batched random opponents,
  in one process and (on a machine with two cores or more) split across two workers.

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

from ..game import engine
from ..game.rules import Rules
from ..tools import cli
from ..views.observation import observe


def _measure(run: Callable[[float], tuple], seconds: float, repeats: int) -> tuple:
    """Median rates (per second) of each count ``run(seconds)`` returns, over repeats."""
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        counts = run(seconds)
        elapsed = time.perf_counter() - start
        rates.append([count / elapsed for count in counts])
    return tuple(statistics.median(column) for column in zip(*rates, strict=True))


def engine_run(rules: str | Rules, players: int, batch: int, seed: int = 0):
    """A closure playing random legal decisions in the batched engine for some seconds."""
    state = engine.init(rules, players, batch, seed=seed)
    generator = np.random.default_rng(seed)
    out = np.zeros((batch, observe(state).shape[1]), dtype=np.float32)
    chunk = max(1, 4096 // batch)

    def run(seconds: float) -> tuple[int, int, int]:
        decisions = 0
        matches_before = int(state.matches_played.sum())
        applied_before = state.scratch.decisions
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            for _ in range(chunk):
                observe(state, out=out)
                mask = engine.legal_mask(state)
                actions = engine.sample_actions(state.legal_bits, generator.random(batch))
                engine.step(state, actions, auto_reset=True)
                decisions += batch
            del mask
        matches = int(state.matches_played.sum()) - matches_before
        return decisions, matches, state.scratch.decisions - applied_before

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
    deck52 = Rules.preset("classic").replace(deck=52)
    for players in player_counts:
        # The classic preset at every batch, and the 52-card deck (deck: 52) at the largest.
        cases: list[tuple[str, str | Rules, int]] = [
            ("classic", "classic", batch) for batch in batches
        ]
        cases += [("classic, deck 52", deck52, batch) for batch in batches[-2:]]
        for label, rules, batch in cases:
            run, state = engine_run(rules, players, batch)
            run(min(0.2, seconds))  # warm up
            decisions, matches, applied = _measure(run, seconds, repeats)
            if rules == "classic":
                results[(players, batch)] = (decisions, applied)
            rows.append(
                [
                    label,
                    str(players),
                    str(batch),
                    f"{decisions:,.0f}",
                    f"{applied:,.0f}",
                    f"{matches:,.1f}",
                    str(state.nbytes_per_game()),
                ]
            )
    print("\n## Engine: random legal play, observation + mask every step (one core)\n")
    print("decisions/s counts the agents' decisions; 'with forced' counts every decision the")
    print("engine applied, the forced ones (one legal action, taken by the engine) too.\n")
    header = ["preset", "players", "batch", "decisions/s", "with forced", "matches/s"]
    print_table([*header, "state B/game"], rows)
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


def aec_run(env_factory, seed: int = 0):
    """Turns/s of a PettingZoo AEC env in the standard ``agent_iter()`` loop, random legal
    actions from the mask (in the observation dict, or in ``info``)."""
    env = env_factory()
    env.reset(seed=seed)
    generator = np.random.default_rng(seed)

    def run(seconds: float) -> tuple[int, int]:
        turns = matches = 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            env.reset()
            for _agent in env.agent_iter():
                observation, _, terminated, truncated, info = env.last()
                if terminated or truncated:
                    action = None
                else:
                    mask = (
                        observation["action_mask"]
                        if isinstance(observation, dict)
                        else info["action_mask"]
                    )
                    legal = np.flatnonzero(mask)
                    action = int(legal[generator.integers(legal.size)])
                env.step(action)
                turns += 1
            matches += 1
        return turns, matches

    return run


def aec_section(seconds: float, repeats: int) -> None:
    from ..envs import sto_odno_v0

    rows = []
    ours = _measure(aec_run(lambda: sto_odno_v0.env(players=2)), seconds, repeats)[0]
    rows.append(["sto_odno_v0 (classic, 2 players)", f"{ours:,.0f}"])
    ratio_text = "(shimmy not installed: `pip install -e .[bench]` to compare)"
    try:
        from shimmy import OpenSpielCompatibilityV0

        def spiel_env():
            return OpenSpielCompatibilityV0(game_name="crazy_eights")

        theirs = _measure(aec_run(spiel_env), seconds, repeats)[0]
        rows.append(["shimmy OpenSpiel crazy_eights", f"{theirs:,.0f}"])
        ratio_text = f"AEC env / shimmy crazy_eights: {ours / theirs:.2f}x turns/s"
    except ImportError:
        pass
    print("\n## PettingZoo AEC envs: agent_iter() loop, random legal actions (one core)\n")
    print_table(["env", "turns/s"], rows)
    print("\n" + ratio_text)


def vector_run(batch: int, players: int = 2, seed: int = 0, workers: int = 1, copy: bool = True):
    """Learner steps/s of the vector env: random learner actions, batched random opponents.

    Returns ``(run, env)``; close the env when done (it holds worker processes when
    ``workers > 1``).
    """
    from ..envs.gym_env import StoOdnoVectorEnv

    env = StoOdnoVectorEnv(batch, players=players, workers=workers, copy=copy)
    env.reset(seed=seed)
    generator = np.random.default_rng(seed)

    def run(seconds: float) -> tuple[int, int]:
        steps = episodes = 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            legal_bits = env.games.legal_bits
            actions = engine.sample_actions(legal_bits, generator.random(batch))
            _, _, terminated, truncated, _ = env.step(actions)
            steps += batch
            episodes += int((terminated | truncated).sum())
        return steps, episodes

    return run, env


def vector_section(seconds: float, repeats: int, batches=(1024, 8192)) -> None:
    rows = []
    largest = max(batches)
    settings = [(players, batch, 1, True) for players in (2, 4) for batch in batches]
    settings.append((2, largest, 1, False))  # observations in a reused buffer
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if (cores or 1) >= 2:  # the same games split across two worker processes
        settings += [(players, largest, 2, True) for players in (2, 4)]
    for players, batch, workers, copy in settings:
        run, env = vector_run(batch, players, workers=workers, copy=copy)
        try:
            run(min(0.2, seconds))  # warm up
            steps, episodes = _measure(run, seconds, repeats)
        finally:
            env.close()
        rows.append(
            [
                "classic",
                str(players),
                str(batch),
                str(workers),
                "yes" if copy else "no",
                f"{steps:,.0f}",
                f"{episodes:,.1f}",
            ]
        )
    print(
        "\n## Vector env: learner steps/s, random learner, batched random opponents "
        "(observation and mask every step; one core per worker process)\n"
    )
    header = ["preset", "players", "batch", "workers", "new arrays", "learner steps/s"]
    print_table([*header, "episodes/s"], rows)
    print("\n'new arrays': every step returns new arrays (the default, copy=True); 'no' is")
    print("copy=False, one observation buffer rewritten by each step (as Gymnasium's).")
    single = next(row for row in rows if row[1:5] == ["2", str(largest), "1", "yes"])
    # No peer is measured here: the number is for comparing runs of this benchmark.
    print(f"\nvector env, 2 players, batch {largest}, one process: {single[5]} learner steps/s")


def profile_aec(seconds: float) -> None:
    """Where an AEC turn's time goes: cProfile of the agent_iter() loop, by component."""
    import cProfile
    import pstats

    from ..envs import sto_odno_v0

    run = aec_run(lambda: sto_odno_v0.env(players=2))
    profiler = cProfile.Profile()
    profiler.enable()
    turns, _ = run(seconds)
    profiler.disable()
    stats = pstats.Stats(profiler)
    # Stats.stats is undocumented and missing from typeshed's stubs
    timings = stats.stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in timings.values())  # tottime over all functions

    def cumulative(file_part: str, name: str) -> float:
        return sum(
            entry[3]
            for (path, _, func), entry in timings.items()
            if file_part in path and func == name
        )

    parts = [
        ("observation vector (observe_one)", cumulative("observation.py", "observe_one")),
        ("engine step (validate, apply, forced decisions)", cumulative("engine.py", "step")),
        (
            "AEC step bookkeeping (rewards, masks, selection)",
            cumulative("aec.py", "step") - cumulative("engine.py", "step"),
        ),
    ]
    print(
        f"\n## Where an AEC turn goes (cProfile, {turns} turns, {total / turns * 1e6:.0f} us "
        "per turn under the profiler)\n"
    )
    print_table(
        ["part", "us/turn", "share"],
        [[name, f"{value / turns * 1e6:.1f}", f"{value / total:.0%}"] for name, value in parts]
        + [
            [
                "the rest (PettingZoo wrappers, agent_iter, last(), the random agent)",
                f"{(total - sum(v for _, v in parts)) / turns * 1e6:.1f}",
                f"{(total - sum(v for _, v in parts)) / total:.0%}",
            ]
        ],
    )


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed; allowed: seconds > 0")
    return value


@cli.quiet_broken_pipe
def main(argv: list[str] | None = None) -> None:
    """The command line (``python -m sto_odno_env.bench --help``)."""
    parser = cli.parser(
        "sto_odno_env.bench",
        "sto-odno throughput: the engine against OpenSpiel's crazy_eights, the AEC env\n"
        "against shimmy's, and the vector env; peers are measured in the same run.",
    )
    parser.add_argument(
        "--seconds", type=_positive_seconds, default=1.5, help="seconds per measurement"
    )
    parser.add_argument(
        "--repeats", type=cli.positive_int, default=3, help="median over this many repeats"
    )
    parser.add_argument("--quick", action="store_true", help="short run (CI smoke)")
    parser.add_argument("--profile", action="store_true", help="profile an AEC turn too")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.repeats = 0.2, 1
    results = engine_section([1, 64, 1024, 8192], [2, 4], args.seconds, args.repeats)
    spiel = openspiel_section(args.seconds, args.repeats)
    if spiel:
        decisions, applied = results[(2, 8192)]
        print(
            f"\nengine (2 players, batch 8192) / OpenSpiel crazy_eights: "
            f"{decisions / spiel:.1f}x agent decisions/s, {applied / spiel:.1f}x counting the "
            "forced decisions too (OpenSpiel counts every decision)"
        )
    aec_section(args.seconds, args.repeats)
    vector_section(args.seconds, args.repeats)
    if args.profile:
        profile_aec(args.seconds)


if __name__ == "__main__":
    raise SystemExit(main())
