"""A :class:`~agents.exact.tree.GameTree` as Gambit's extensive-form text (``.efg``).

The format every game-theory tool reads (Gambit, OpenSpiel's ``pyspiel.load_efg_game``):
the deal is one chance node, each decision a player node whose information set is
numbered per player and named ``i<k>`` (``k``: the tree's information set), each action
named as the kit names it (``play Q♠``, ``draw``), each terminal its match rewards. Nodes
are written depth first, as the format wants.
"""

from __future__ import annotations

from pathlib import Path

from sto_odno_env.game.cards import action_name

from .tree import GameTree


def to_efg(tree: GameTree) -> str:
    """The tree as EFG text (``EFG 2 R``: payoffs and probabilities as decimals)."""
    deck = tree.rules.deck_spec
    names = [action_name(a, deck) for a in range(tree.masks.shape[1])]
    per_player: dict[int, int] = {}
    number: dict[int, int] = {}
    for infoset, seat in enumerate(tree.infoset_player.tolist()):
        per_player[seat] = per_player.get(seat, 0) + 1
        number[infoset] = per_player[seat]
    seats = " ".join(f'"seat {s}"' for s in range(tree.players))
    lines = [f'EFG 2 R "{tree.rules.name}" {{ {seats} }}', '""', ""]
    probability = repr(1.0 / tree.deals)
    first, counts = tree.first_child.tolist(), tree.num_children.tolist()
    player, infoset, action = tree.player.tolist(), tree.infoset.tolist(), tree.action.tolist()
    utility = tree.utility.tolist()
    outcome = 0
    stack = [0]
    while stack:
        node = stack.pop()
        children = range(first[node], first[node] + counts[node])
        if node == 0:
            deals = " ".join(f'"deal {k}" {probability}' for k in range(len(children)))
            lines.append(f'c "" 1 "" {{ {deals} }} 0')
        elif counts[node] == 0:
            outcome += 1
            payoffs = ", ".join(repr(float(v)) for v in utility[node])
            lines.append(f't "" {outcome} "" {{ {payoffs} }}')
        else:
            moves = " ".join(f'"{names[action[c]]}"' for c in children)
            info = infoset[node]
            lines.append(f'p "" {player[node] + 1} {number[info]} "i{info}" {{ {moves} }} 0')
        stack.extend(reversed(children))
    return "\n".join(lines) + "\n"


def write_efg(tree: GameTree, path: str | Path) -> Path:
    """Write :func:`to_efg` to ``path`` (UTF-8) and return it."""
    path = Path(path)
    path.write_text(to_efg(tree), encoding="utf-8")
    return path
