"""Where an agent's first places come from at a table of bots: one table.

``python lab/tools/placements.py --agent ppo-classic [--duel ppo-classic-2p-long]
[--against expert] [--players 4] [--deals 500] [--seed 1]``

The agent sits in one seat against ``--against`` in the others, on duplicate deals (each
deal in every seat rotation, as ``python -m agents.evaluate --against`` plays them). Per
agent: the share of each final place, the share of matches it is still in when two are
left (the final two), its first places among those (the end-game duel), and its
exact-target resets per match beside the bots' seats. With ``--duel NAME`` a second row
plays the same agent with ``NAME`` taking over every decision where two players are left,
on the same deals: what a stronger duel player would add.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np

from agents.arena import MatchResult, play
from agents.evaluate import duplicate_schedule
from agents.stats import wilson
from sto_odno_env.bots.features import players_in, view_of
from sto_odno_env.bots.policy import BasePolicy
from sto_odno_env.bots.registry import AgentError, load
from sto_odno_env.game.rules import Rules, RulesError, load_rules
from sto_odno_env.tools import cli


class DuelSwap(BasePolicy):
    """``multi`` while more than two players are in, ``duel`` once two are left."""

    def __init__(self, multi: BasePolicy, duel: BasePolicy, rules: Rules):
        self.multi, self.duel, self.rules = multi, duel, rules

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        observations, masks = np.asarray(observations), np.asarray(masks)
        two_left = players_in(view_of(observations, self.rules)) == 2
        actions = np.zeros(len(observations), dtype=np.int64)
        for rows, agent in ((~two_left, self.multi), (two_left, self.duel)):
            if rows.any():
                actions[rows] = agent.act(observations[rows], masks[rows])
        return actions


def placements(results: list[MatchResult], name: str) -> dict[str, float]:
    """The place shares, the final-two share, first given the final two, and the resets of
    ``name`` (one seat per match) against the other seats, over ``results``."""
    places, own_resets, other_resets = [], [], []
    for result in results:
        if name not in result.match.seats:
            continue
        seat = result.match.seats.index(name)
        places.append(result.ranking.index(seat))
        own_resets.append(result.resets[seat])
        other_resets.append(np.delete(result.resets, seat).mean())
    place = np.array(places)
    players = len(results[0].match.seats)
    firsts, final_two = int((place == 0).sum()), int((place <= 1).sum())
    low, high = wilson(firsts, place.size)
    return {
        "matches": place.size,
        "first": firsts / place.size,
        "first_low": low,
        "first_high": high,
        **{f"place_{k + 1}": float((place == k).mean()) for k in range(players)},
        "final_two": final_two / place.size,
        "first_given_final_two": firsts / max(final_two, 1),
        "resets": float(np.mean(own_resets)),
        "bot_resets": float(np.mean(other_resets)),
    }


def main(argv: list[str] | None = None) -> int:
    """The command line; Ctrl-C or SIGTERM stops it with one line, exit 130, nothing shown
    (a table of the deals played so far would not be duplicate-balanced)."""
    try:
        with cli.stopping():
            return _main(argv)
    except KeyboardInterrupt as stopped:
        return cli.stopped(stopped, "no table printed (the deals are measured together)")


def _main(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(
        prog="python lab/tools/placements.py",
        description=__doc__,
        formatter_class=cli.HelpFormatter,
    )
    parser.add_argument("--agent", required=True, help="an agent name or policy file")
    parser.add_argument("--duel", help="an agent that takes over once two players are left")
    parser.add_argument("--against", default="expert", help="the other seats")
    cli.table_arguments(parser, players=4, counts="3 to 6")
    parser.add_argument(
        "--deals", type=cli.positive_int, default=500, help="deals, each in every rotation"
    )
    parser.add_argument("--seed", type=cli.natural_int, default=1, help="seed of the deals")
    args = parser.parse_args(argv)
    try:
        rules = load_rules(args.rules)
        rules.check_players(args.players)
        if args.players < 3:
            raise RulesError(f"players: {args.players}; allowed: 3 or more (a final two to reach)")
        agents = {args.agent: load(args.agent, rules, args.players, seed=args.seed)}
        if args.duel:
            swap = f"{args.agent} + {args.duel} when two are left"
            duel = load(args.duel, rules, 2, seed=args.seed)
            agents[swap] = DuelSwap(agents[args.agent], duel, rules)
        bot = f"{args.against} "  # a name of its own, so the agent may also be the bot
        agents[bot] = load(args.against, rules, args.players, seed=args.seed)
    except (AgentError, RulesError) as error:
        parser.error(str(error))
    tables = [(name,) + (bot,) * (args.players - 1) for name in agents if name != bot]
    schedule = duplicate_schedule(tables, args.deals, args.seed)
    print(f"playing {len(schedule)} matches", file=sys.stderr, flush=True)
    results = play(rules, args.players, agents, schedule)
    places = " | ".join(f"place {k + 1}" for k in range(args.players))
    print(f"| agent | matches | first [95% CI] | {places} | final two | first given final two "
          f"| resets per match (bots' seats) |")  # fmt: skip
    print("|---" * (args.players + 6) + "|")
    for name in agents:
        if name == bot:
            continue
        row = placements(results, name)
        shares = " | ".join(f"{row[f'place_{k + 1}']:.3f}" for k in range(args.players))
        print(f"| {name} | {row['matches']} | {row['first']:.3f} [{row['first_low']:.3f}, "
              f"{row['first_high']:.3f}] | {shares} | {row['final_two']:.3f} | "
              f"{row['first_given_final_two']:.3f} | {row['resets']:.3f} "
              f"({row['bot_resets']:.3f}) |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
