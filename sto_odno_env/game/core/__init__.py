"""The rules engine's internals, one module per stage of a turn (see docs/architecture.md).

Imports go one way, in the order of the list below (docs/architecture.md, checked by
tests/test_layers.py):

* :mod:`.bits`: flat cell views, bit counts and action masks (array helpers);
* :mod:`.state`: :class:`~.state.State`, :func:`~.state.empty_state`, seats, round-end marks;
* :mod:`.legal`: legal actions (docs/rules.md §2, §4), their check and error messages, sampling;
* :mod:`.scoring`: round scores, eliminations, rankings and rewards (docs/rules.md §7, §8);
* :mod:`.draws`: drawing, reshuffles and steals (docs/rules.md §6);
* :mod:`.turns`: passing the turn with a card's effects (docs/rules.md §5);
* :mod:`.rounds`: the start and end of rounds and matches (docs/rules.md §3, §7, §8);
* :mod:`.decisions`: the action kinds and their handlers (docs/rules.md §4);
* :mod:`.settle`: the loop that applies decisions until a real one waits (docs/rules.md §4, §8).

:mod:`sto_odno_env.game.engine` is the public facade; the few modules outside ``core`` that
import from here are named in docs/architecture.md.
"""
