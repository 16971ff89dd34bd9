"""OpenSpiel's ISMCTS and MCTS at a kit table, against kit agents, on duplicate deals.

    python lab/openspiel/mcts_table.py --bot ismcts --against expert --deals 10 \
        --simulations 16 [--rules classic] [--players 2] [--seed 0]

Two players: each deal is played twice with the seats swapped (duplicate deals: the same
deck in each round of a deal, drawn from the deal's seed). The OpenSpiel bot searches the
python_sto_odno game; its leaf values are random rollouts to the end of the round, valued
by the round's points (below). ISMCTS samples the hidden cards from the seat's view with the
game's own ``resample_from_infostate`` (sto_odno_env/interop/openspiel/resample.py);
MCTS searches the true state, so it sees the other hands: an upper
reference, not a fair player; ``random`` is OpenSpiel's uniformly random bot, the floor.
Prints the bot's share of won matches with a 95% Wilson interval, and its mean match
reward.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import agents
from agents.stats import wilson
from sto_odno_env.game import engine
from sto_odno_env.interop import openspiel as osp
from sto_odno_env.views.observation import observe_one


class RoundRollouts(mcts.Evaluator):
    """Random play to the end of the current round (or match): each seat's value is
    +1 for finishing the round, else minus its round points over the target, within
    [-1, 1]; a finished match gives its rewards."""

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
            return int(deck[len(event.revealed)])
        return int(self.stream.choice(remaining))


def play_match(game, seats: list, deal: int) -> list[float]:
    chance = DealChance(deal)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance.outcome(state))
            continue
        seat = state.current_player()
        player = seats[seat]
        if isinstance(player, pyspiel.Bot):
            action = player.step(state)
        else:
            view = state.engine_state
            mask = engine.legal_mask(view)[0]
            action = int(player(observe_one(view, seat), mask))
        state.apply_action(int(action))
    return state.returns()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", choices=["ismcts", "mcts", "random"], default="ismcts")
    parser.add_argument("--against", default="expert")
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--simulations", type=int, default=16)
    parser.add_argument("--rollouts", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.players != 2:
        parser.error("--players: this script seats one bot against one agent (2 players)")
    game = pyspiel.load_game(osp.GAME_NAME, {"rules": args.rules, "players": 2})
    random_state = np.random.RandomState(args.seed)
    evaluator = RoundRollouts(args.rollouts, random_state)
    if args.bot == "ismcts":
        bot = ismcts.ISMCTSBot(
            game,
            evaluator,
            uct_c=2.0,
            max_simulations=args.simulations,
            random_state=random_state,
            use_observation_string=True,
        )
    elif args.bot == "mcts":
        bot = mcts.MCTSBot(
            game, 2.0, args.simulations, evaluator, random_state=random_state, solve=False
        )
    else:  # the floor: OpenSpiel's uniformly random bot (made for its seat below)
        bot = None
    opponent = agents.load(args.against, args.rules, 2)
    wins, rewards, matches = 0.0, [], 0
    start = time.time()
    for deal in range(args.seed, args.seed + args.deals):
        for bot_seat in (0, 1):
            seats = [opponent, opponent]
            seats[bot_seat] = bot or pyspiel.make_uniform_random_bot(bot_seat, deal)
            returns = play_match(game, seats, deal)
            reward = returns[bot_seat]
            rewards.append(reward)
            wins += 1.0 if reward > 0 else (0.5 if reward == 0 else 0.0)
            matches += 1
    low, high = wilson(wins, matches)
    budget = "no search" if bot is None else f"{args.simulations} simulations"
    print(
        f"{args.bot} ({budget}) vs {args.against}, {args.rules} 2p, "
        f"{args.deals} duplicate deals ({matches} matches): wins {wins / matches:.3f} "
        f"[{low:.3f}, {high:.3f}], mean reward {np.mean(rewards):+.3f}, "
        f"{time.time() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
