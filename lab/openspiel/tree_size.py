"""Walk the whole game tree of python_sto_odno under a rule set, within a time limit.

    python lab/openspiel/tree_size.py RULES.yaml [--players 2] [--seconds 300]

Prints the chance, decision and terminal nodes visited, the information states met and
whether the walk finished: OpenSpiel's exact best response walks this same tree.
"""

from __future__ import annotations

import argparse
import sys
import time

import pyspiel

from sto_odno_env.interop import openspiel as osp


class Timeout(Exception):
    pass


def walk(game: pyspiel.Game, seconds: float) -> tuple[dict[str, int], int, bool, float]:
    counts = {"chance": 0, "decision": 0, "terminal": 0}
    infosets: set[str] = set()
    start = time.time()

    def visit(state: pyspiel.State) -> None:
        if time.time() - start > seconds:
            raise Timeout
        if state.is_terminal():
            counts["terminal"] += 1
        elif state.is_chance_node():
            counts["chance"] += 1
            for action, _ in state.chance_outcomes():
                visit(state.child(action))
        else:
            counts["decision"] += 1
            infosets.add(state.information_state_string())
            for action in state.legal_actions():
                visit(state.child(action))

    finished = True
    try:
        visit(game.new_initial_state())
    except Timeout:
        finished = False
    return counts, len(infosets), finished, time.time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=300.0)
    args = parser.parse_args(argv)
    game = pyspiel.load_game(osp.GAME_NAME, {"rules": args.rules, "players": args.players})
    counts, infosets, finished, spent = walk(game, args.seconds)
    state = "the whole tree" if finished else f"stopped after {args.seconds:.0f} s"
    print(
        f"{args.rules}: {state}: {counts['chance']} chance, {counts['decision']} decision, "
        f"{counts['terminal']} terminal nodes, {infosets} information states, {spent:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
