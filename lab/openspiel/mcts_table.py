"""OpenSpiel's ISMCTS and MCTS at a kit table, against kit agents, on duplicate deals.

    python lab/openspiel/mcts_table.py --bot ismcts --against expert --deals 10 \
        --simulations 100 [--rounds 1] [--rules classic] [--seed 0] [--out FILE.jsonl]

    python lab/openspiel/mcts_table.py --grid --bots ismcts,mcts \
        --simulations 100,400 --against expert,ppo-classic --deals 10 --out FILE.jsonl

    python lab/openspiel/mcts_table.py --table FILE.jsonl

    python lab/openspiel/mcts_table.py --time-decisions 5 --bot mcts --simulations 100

Two players: each deal is played twice with the seats swapped (duplicate deals: the same
first dealer and the same deck in each round of a deal, drawn from the deal's seed). The
OpenSpiel bot searches the python_sto_odno game. With ``--rounds 1`` (the default) the game
is one round and its utility is the kit's round reward (docs/openspiel.md): the bot's leaf
values are OpenSpiel's own ``RandomRolloutEvaluator`` (one random play-out to the round's
end); a deal's result is the bot's round reward, and the bot wins the round when its reward
is above the agent's (a tie counts ½). With ``--rounds 0`` whole matches are played and the
rollouts stop at the end of the round they are in (:class:`RoundRollouts`).

ISMCTS samples the hidden cards from the seat's view with the game's own
``resample_from_infostate`` (sto_odno_env/interop/openspiel/resample.py); MCTS searches the
true state, so it sees the other hand: an upper reference, not a fair player; ``random``
is OpenSpiel's uniformly random bot, the floor.

``--out`` appends one JSON line per finished game (the cell, the deal, the bot's seat, its
reward and win, its decisions' seconds) and skips the games already in the file, so a run
that is stopped resumes where it was. ``--grid`` plays every cell of bots × simulations ×
opponents, deal by deal across the cells, so a run stopped early has about as many deals
in each cell. ``--time-decisions N`` times the bot's ``step`` at the first N decisions of
a random round (seed ``--seed``): the median wall and CPU seconds. ``--table`` prints the
Markdown table of a file: per cell, the bot's round win rate with its 95% Wilson interval,
its mean reward, and the median seconds per decision.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import agents
from agents.stats import wilson
from sto_odno_env.game import engine
from sto_odno_env.interop import openspiel as osp
from sto_odno_env.interop.openspiel.rollouts import EngineRollouts
from sto_odno_env.views.observation import observe_one


class RoundRollouts(mcts.Evaluator):
    """For whole matches (``--rounds 0``): random play to the end of the current round (or
    match); each seat's value is +1 for finishing the round, else minus its round points
    over the target, within [-1, 1]; a finished match gives its rewards."""

    def __init__(self, rollouts: int, rng: np.random.RandomState):
        self.rollouts = rollouts
        self.rng = rng

    def evaluate(self, state: pyspiel.State) -> np.ndarray:
        players = state.get_game().num_players()
        total = np.zeros(players)
        for _ in range(self.rollouts):
            work = state.clone()
            start = work.view_state
            round_now = int(start.round[0])
            totals = start.totals[0].astype(float).copy()
            target = start.tables.target
            while not work.is_terminal():
                view = work.view_state
                if work.engine_state is not None and int(view.round[0]) != round_now:
                    break
                if work.is_chance_node():
                    outcomes = [o for o, _ in work.chance_outcomes()]
                    work.apply_action(int(self.rng.choice(outcomes)))
                else:
                    work.apply_action(int(self.rng.choice(work.legal_actions())))
            if work.is_terminal():
                total += np.asarray(work.returns())
                continue
            gained = work.view_state.totals[0] - totals
            value = np.where(gained <= 0, 1.0, -np.minimum(gained / target, 1.0))
            total += value
        return total / self.rollouts

    def prior(self, state: pyspiel.State) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


class DealChance:
    """The chance outcomes of one deal: each round's deck and the first dealer from the
    deal's seed (the same in both seatings), reshuffles and steals from a running stream."""

    def __init__(self, seed: int):
        self.seed = seed
        self.stream = np.random.default_rng([seed, 99])

    def outcome(self, state: osp.StoOdnoState) -> int:
        event = state.open_event
        index = state.chance_events.index(event)
        remaining = event.remaining()
        if event.kind == "dealer":
            return int(np.random.default_rng([self.seed]).integers(len(event.pool)))
        if event.kind == "deck":
            number = sum(e.kind == "deck" for e in state.chance_events[: index + 1])
            deck = np.random.default_rng([self.seed, number]).permutation(event.pool).tolist()
            # The deck's cards are placed in its order; the next one not placed yet (a card
            # of the stock is placed as it becomes the top, docs/openspiel.md).
            return int(next(card for card in deck[len(event.revealed) :] if card in remaining))
        return int(self.stream.choice(remaining))


def play_game(game, seats: list, deal: int, bot_seat: int) -> tuple[list[float], list[float]]:
    """One game of the deal; returns the returns and the bot's seconds per decision."""
    chance = DealChance(deal)
    state = game.new_initial_state()
    seconds = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance.outcome(state))
            continue
        seat = state.current_player()
        player = seats[seat]
        if isinstance(player, pyspiel.Bot):
            start = time.perf_counter()
            action = player.step(state)
            if seat == bot_seat:
                seconds.append(time.perf_counter() - start)
        else:
            view = state.engine_state
            mask = engine.legal_mask(view)[0]
            action = int(player(observe_one(view, seat), mask))
        state.apply_action(int(action))
    return state.returns(), seconds


def make_evaluator(rollouts: str, count: int, game, random_state: np.random.RandomState):
    """The leaf evaluator: OpenSpiel's random rollouts (``openspiel``), or the kit's engine
    rollouts (:class:`EngineRollouts`) by the uniform policy or a kit agent, ``count`` a
    leaf."""
    if rollouts == "openspiel":
        if game.rounds == 1:  # the game ends with the round: OpenSpiel's own rollouts
            return mcts.RandomRolloutEvaluator(count, random_state)
        return RoundRollouts(count, random_state)
    policy = None if rollouts == "uniform" else agents.load(rollouts, game.rules, 2)
    return EngineRollouts(count, random_state, policy)


def make_bot(
    kind: str,
    game,
    simulations: int,
    seat: int,
    seed: int,
    rollouts: str = "openspiel",
    count: int = 1,
):
    """OpenSpiel's bot of ``kind`` for ``seat`` (its random state from ``seed``), its leaves
    valued by ``rollouts`` (:func:`make_evaluator`)."""
    random_state = np.random.RandomState(seed)
    if kind == "random":
        return pyspiel.make_uniform_random_bot(seat, seed)
    evaluator = make_evaluator(rollouts, count, game, random_state)
    if kind == "ismcts":
        return ismcts.ISMCTSBot(
            game, evaluator, uct_c=2.0, max_simulations=simulations, random_state=random_state
        )
    return mcts.MCTSBot(game, 2.0, simulations, evaluator, random_state=random_state, solve=False)


def cell_key(
    bot: str,
    simulations: int,
    against: str,
    rules: str,
    rounds: int,
    rollouts: str = "openspiel",
    count: int = 1,
) -> str:
    """The name a game's cell has in the output file (the leaf evaluator named unless it
    is OpenSpiel's single random rollout)."""
    budget = 0 if bot == "random" else simulations
    key = f"{bot}/{budget}/{against}/{rules}/rounds={rounds}"
    if bot != "random" and (rollouts, count) != ("openspiel", 1):
        key += f"/rollouts={rollouts}x{count}"
    return key


def done_games(path: Path | None) -> set[tuple[str, int, int]]:
    """The (cell, deal, bot seat) already in the output file."""
    if path is None or not path.exists():
        return set()
    done = set()
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            done.add((row["cell"], row["deal"], row["bot_seat"]))
    return done


def run_cells(args, cells: list[tuple[str, int, str]]) -> None:
    """Play every cell's deals (deal by deal across the cells), appending to ``--out``."""
    out = Path(args.out) if args.out else None
    done = done_games(out)
    game = pyspiel.load_game(
        osp.GAME_NAME, {"rules": args.rules, "players": 2, "rounds": args.rounds}
    )
    opponents = {name: agents.load(name, args.rules, 2) for name in {c[2] for c in cells}}
    results: dict[str, list[dict]] = {}
    for deal in range(args.seed, args.seed + args.deals):
        for bot_kind, simulations, against in cells:
            key = cell_key(
                bot_kind,
                simulations,
                against,
                args.rules,
                args.rounds,
                args.rollouts,
                args.n_rollouts,
            )
            for bot_seat in (0, 1):
                if (key, deal, bot_seat) in done:
                    continue
                seats = [opponents[against], opponents[against]]
                seats[bot_seat] = make_bot(
                    bot_kind,
                    game,
                    simulations,
                    bot_seat,
                    deal * 2 + bot_seat,
                    args.rollouts,
                    args.n_rollouts,
                )
                returns, seconds = play_game(game, seats, deal, bot_seat)
                mine, theirs = returns[bot_seat], returns[1 - bot_seat]
                row = {
                    "cell": key,
                    "deal": deal,
                    "bot_seat": bot_seat,
                    "reward": mine,
                    "other": theirs,
                    "win": 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0,
                    "seconds": [round(s, 3) for s in seconds],
                }
                results.setdefault(key, []).append(row)
                if out is not None:
                    with out.open("a") as handle:
                        handle.write(json.dumps(row) + "\n")
                print(
                    f"{key} deal {deal} seat {bot_seat}: reward {mine:+.3f} "
                    f"(agent {theirs:+.3f}), {sum(seconds):.0f} s",
                    flush=True,
                )
    if out is None:
        for rows in results.values():
            print(summary_row(rows))


def summary_row(rows: list[dict]) -> str:
    """One Markdown row: the cell, games, win rate and Wilson interval, mean reward, s/decision."""
    bot, simulations, against, *_, last = rows[0]["cell"].split("/")
    leaves = last.removeprefix("rollouts=") if last.startswith("rollouts=") else ""
    wins = sum(row["win"] for row in rows)
    low, high = wilson(wins, len(rows))
    deals = len({row["deal"] for row in rows})
    seconds = [s for row in rows for s in row["seconds"]]
    searches = seconds and bot != "random"  # the random bot's steps are not a search
    per_decision = f"{statistics.median(seconds):.2f}" if searches else "–"
    name = {"ismcts": "ISMCTS", "mcts": "MCTS (sees the other hand)", "random": "uniform random"}
    budget = f" ({simulations})" if bot != "random" else ""
    if leaves:
        policy, count = leaves.rsplit("x", 1)
        budget = f" ({simulations}; {policy} rollouts ×{count})"
    return (
        f"| {name[bot]}{budget} | {against} | {deals} ({len(rows)}) | {wins / len(rows):.3f} | "
        f"[{low:.3f}, {high:.3f}] | {np.mean([row['reward'] for row in rows]):+.3f} | "
        f"{np.mean([row['other'] for row in rows]):+.3f} | {per_decision} |"
    )


def print_table(paths: list[Path]) -> None:
    """The Markdown table of output files, a row per cell (complete deals only: both seats;
    a game that two runs played, the same deal and seat, counted once)."""
    rows: dict[str, list[dict]] = {}
    seen = set()
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                key = (row["cell"], row["deal"], row["bot_seat"])
                if key not in seen:
                    seen.add(key)
                    rows.setdefault(row["cell"], []).append(row)
    print(
        "| bot (simulations) | against | deals (games) | bot's round wins | 95% interval "
        "| bot's mean reward | agent's mean reward | s/decision (median) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for cell_rows in rows.values():
        seats: dict[int, int] = {}
        for row in cell_rows:
            seats[row["deal"]] = seats.get(row["deal"], 0) + 1
        complete = [row for row in cell_rows if seats[row["deal"]] == 2]
        if complete:
            print(summary_row(complete))


def time_decisions(args, count: int) -> None:
    """The median wall and CPU (this process) seconds of ``bot.step`` at ``count`` decisions
    of a round played at random, the bot deciding for whoever is to act."""
    game = pyspiel.load_game(
        osp.GAME_NAME, {"rules": args.rules, "players": 2, "rounds": args.rounds}
    )
    rng = np.random.default_rng(args.seed)
    bot = make_bot(
        args.bot, game, int(args.simulations), 0, args.seed, args.rollouts, args.n_rollouts
    )
    state = game.new_initial_state()
    wall, cpu = [], []
    while len(wall) < count and not state.is_terminal():
        if state.is_chance_node():
            outcomes = [outcome for outcome, _ in state.chance_outcomes()]
            state.apply_action(int(rng.choice(outcomes)))
            continue
        if len(state.legal_actions()) > 1:  # a real choice: the bot searches it
            start, start_cpu = time.perf_counter(), time.process_time()
            bot.step(state)
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        state.apply_action(int(rng.choice(state.legal_actions())))
    print(
        f"{args.bot} ({args.simulations} simulations, {args.rollouts} rollouts x"
        f"{args.n_rollouts}), {args.rules} 2p rounds={args.rounds}: "
        f"{len(wall)} decisions, median {statistics.median(wall):.2f} s wall "
        f"({min(wall):.2f}-{max(wall):.2f}), {statistics.median(cpu):.2f} s CPU "
        f"({min(cpu):.2f}-{max(cpu):.2f})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", choices=["ismcts", "mcts", "random"], default="ismcts")
    parser.add_argument("--against", default="expert", help="an agent, or a list with --grid")
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1, help="1: a game is one round")
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--simulations", default="100", help="a number, or a list with --grid")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="a JSONL file: append each game, skip those in it")
    parser.add_argument("--grid", action="store_true", help="every cell of the lists")
    parser.add_argument("--bots", default="ismcts,mcts", help="with --grid")
    parser.add_argument("--table", metavar="FILE", nargs="+", help="print the table of --out files")
    parser.add_argument("--time-decisions", type=int, metavar="N", help="time N decisions")
    parser.add_argument(
        "--rollouts",
        default="openspiel",
        help="leaf values: openspiel (its RandomRolloutEvaluator), uniform or a kit agent "
        "(expert, greedy, ...: EngineRollouts, played in the kit's engine)",
    )
    parser.add_argument("--n-rollouts", type=int, default=1, help="rollouts per leaf")
    args = parser.parse_args(argv)
    if args.table:
        print_table([Path(name) for name in args.table])
        return 0
    if args.time_decisions:
        time_decisions(args, args.time_decisions)
        return 0
    if args.players != 2:
        parser.error("--players: this script seats one bot against one agent (2 players)")
    if args.grid:
        cells = [
            (bot, int(simulations), against)
            for simulations in args.simulations.split(",")
            for bot in args.bots.split(",")
            for against in args.against.split(",")
        ]
    else:
        cells = [(args.bot, int(args.simulations), args.against)]
    start = time.time()
    run_cells(args, cells)
    print(f"{time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
