"""Kit records (docs/rules.md §10) from OpenSpiel states, and OpenSpiel states from them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...game.rules import Rules, load_rules
from .chance import ChanceEvent
from .match import replay


def record_events(state) -> list[dict[str, Any]]:
    """The match so far as a kit record's events (docs/rules.md §10).

    Each round's deck and each reshuffled stock list the cards placed by chance actions,
    then the cards nobody drew in ascending id order (any order replays the same match: the
    engine never looked at them). A match that is not over gets no end line here;
    :func:`sto_odno_env.records.record.write_records` adds the ``unfinished`` line. (States
    keep no record events while they play: the match is played again here with the engine's
    trace on.)"""
    match = state._m
    if not match.traced:
        match = replay(dict(match.facts.params), bytes(match.actions), traced=True)
    stacks: dict[str, list[ChanceEvent]] = {"deck": [], "shuffle": []}
    for event in match.events:
        if event.kind in stacks:
            stacks[event.kind].append(event)
    decks, shuffles = iter(stacks["deck"]), iter(stacks["shuffle"])
    events = []
    for event in match.log.all() if match.log else []:
        event = dict(event)
        if event["type"] == "round":
            event["deck"] = next(decks).order()
        elif event["type"] == "reshuffle" and not match.facts.flip:
            event["stock"] = next(shuffles).order()
        events.append(event)
    return events


def write_record(state, path: str | Path) -> None:
    """Write the match as a kit record (JSON Lines) that ``python -m sto_odno_env.replay``
    checks."""
    from ...records.record import write_records

    write_records(path, [record_events(state)])


def record_outcomes(events: Sequence[dict[str, Any]], rules: Rules | str) -> list[list[int]]:
    """The chance outcomes of a kit record's match, one list per engine event in order:
    ``[dealer]``, a round's deck, a reshuffled stock (unless ``reshuffle: flip``), ``[card]``
    stolen."""
    rules = load_rules(rules)
    outcomes: list[list[int]] = []
    for event in events:
        if event["type"] == "round":
            if not outcomes:
                outcomes.append([event["dealer"]])
            outcomes.append(list(event["deck"]))
        elif event["type"] == "reshuffle" and rules.reshuffle != "flip":
            outcomes.append(list(event["stock"]))
        elif event["type"] == "steal":
            outcomes.append([event["card"]])
    return outcomes


def state_from_record(game, events: Sequence[dict[str, Any]]):
    """Play one kit record's match through the OpenSpiel game: its chance outcomes at the
    chance nodes, its unforced decisions at the decision nodes. The state returned is where
    the record ends (the match's end, the game's last round, or where the record stopped)."""
    outcomes = record_outcomes(events, game.rules)
    decisions = [e["action"] for e in events if e["type"] == "action" and not e["forced"]]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            match = state._m
            # A turned-over pile (``flip``) is an event of the state but not of the record.
            index = sum(e.kind != "flip" for e in match.events[: match.need])
            event = match.events[match.need]
            state.apply_action(int(outcomes[index][len(event.revealed)]))
        elif decisions:
            state.apply_action(int(decisions.pop(0)))
        else:
            break
    if decisions and not state._m.over:
        raise ValueError(f"the match ended with {len(decisions)} recorded decisions left")
    return state
