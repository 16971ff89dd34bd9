"""The web table's games: the rule sets and agents on offer, the games in play (bounded, idle
ones expire), and the duplicate baseline of a finished match.

Nothing a client sends names a file: a rule set is a preset or a variant listed from the
server's ``--rules-dir`` (looked up by its file name in that listing), an agent is a name
of the registry (:data:`sto_odno_env.bots.registry.BOTS` and the shipped policies). Game ids come
from :func:`secrets.token_urlsafe`.
"""

from __future__ import annotations

import secrets
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ...game.rules import PRESETS, Rules, RulesError, load_rules
from .match import WebMatch

GAME_ID_BYTES = 18  # 144 random bits: unguessable


class RequestError(ValueError):
    """A request the table cannot serve; ``status`` is its HTTP status (4xx)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class AgentInfo:
    """An agent of the registry as the table offers it."""

    name: str
    label: str
    rules: str | None = None  # a shipped policy: the rules it was trained for
    players: int | None = None  # ... and the player count


def registry_agents() -> list[AgentInfo]:
    """The bots, then the shipped policies (with the rules and players each was trained
    for, from the ``.yaml`` beside it)."""
    from ...bots.registry import BOTS, SHIPPED  # the agents package depends on this one

    offered = [AgentInfo(name, name) for name in BOTS]
    for name, path in SHIPPED.items():
        try:
            data = yaml.safe_load(path.with_suffix(".yaml").read_text(encoding="utf-8"))
            rules, players = str(data["rules"]), int(data["players"])
        except (OSError, yaml.YAMLError, TypeError, KeyError, ValueError):
            offered.append(AgentInfo(name, f"{name} (trained policy)"))
            continue
        label = f"{name} (trained policy: {rules}, {players} players)"
        offered.append(AgentInfo(name, label, rules, players))
    return offered


class Catalog:
    """The rule sets (presets, and the variants of ``rules_dir``) and the agents on offer.

    Variants are read once, at start; one that does not load is left out with a warning
    naming the file and the fault."""

    def __init__(self, rules_dir: Path | None = None, warn: Callable[[str], None] | None = None):
        warn = warn or (lambda message: print(f"warning: {message}", file=sys.stderr))
        self.rules: dict[str, Rules] = {name: load_rules(name) for name in PRESETS}
        self.variants: list[str] = []
        if rules_dir is not None:
            for path in sorted(Path(rules_dir).glob("*.yaml")) + sorted(
                Path(rules_dir).glob("*.yml")
            ):
                try:
                    rules = Rules.from_yaml(path)
                except (RulesError, OSError, ValueError) as error:
                    warn(f"--rules-dir: {path.name} left out: {error}")
                    continue
                self.rules[path.name] = rules
                self.variants.append(path.name)
        self.agents = registry_agents()
        self.agent_names = [agent.name for agent in self.agents]
        self._policies: OrderedDict[tuple, Any] = OrderedDict()
        self._lock = threading.Lock()

    def rule_set(self, key: str) -> Rules:
        """The rule set offered as ``key`` (a preset name or a variant's file name)."""
        if key not in self.rules:
            raise RequestError(f"unknown rules {key!r}; allowed: {', '.join(self.rules)}")
        return self.rules[key]

    def rules_label(self, key: str) -> str:
        rules = self.rules[key]
        if key in PRESETS:
            return key
        return f"{key} (variant {rules.name!r})"

    def agent(self, name: str, rules: Rules, players: int, seed: int):
        """The agent ``name`` for ``rules`` and ``players``. Bots are made per game (they
        hold a random stream); a trained policy is loaded once and shared (it acts greedily
        and keeps no state)."""
        from ...bots.registry import BOTS, AgentError, load

        if name not in self.agent_names:
            raise RequestError(f"unknown agent {name!r}; allowed: {', '.join(self.agent_names)}")
        try:
            if name in BOTS:
                return load(name, rules, players, seed=seed)
            key = (name, repr(rules), players)
            with self._lock:
                if key in self._policies:
                    self._policies.move_to_end(key)
                    return self._policies[key]
            policy = load(name, rules, players)
            with self._lock:
                self._policies[key] = policy
                while len(self._policies) > 8:
                    self._policies.popitem(last=False)
            return policy
        except AgentError as error:  # named as offered, not by the server's file path
            from ...bots.registry import SHIPPED

            message = str(error)
            if name in SHIPPED:
                message = message.replace(f"'{SHIPPED[name]}'", repr(name))
                message = message.replace(str(SHIPPED[name]), name)
            raise RequestError(message) from None


@dataclass
class Game:
    """A game in play: its match, what it was set up with, and its baselines."""

    id: str
    match: WebMatch
    rules_key: str
    opponents: list[str]  # the agent name in each seat, None for the human's
    agent_seeds: list[int]
    last_seen: float
    lock: threading.Lock = field(default_factory=threading.Lock)
    baselines: dict[str, dict[str, Any]] = field(default_factory=dict)
    wanted_baseline: str | None = None  # the agent whose baseline the page shows at the end

    def view(self) -> dict[str, Any]:
        """The human's view of the game (:func:`sto_odno_env.apps.web.view.seat_view`)."""
        return self.match.view(self.id, list(self.baselines.values()))


class GameStore:
    """The games in play, by id: at most ``max_games`` (the least recently seen goes first
    when a new one would pass that), each dropped after ``idle_seconds`` without a request."""

    def __init__(
        self,
        catalog: Catalog,
        max_games: int = 500,
        idle_seconds: float = 1800.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        if max_games < 1 or idle_seconds <= 0:
            raise ValueError("max_games must be >= 1 and idle_seconds > 0")
        self.catalog = catalog
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._games: OrderedDict[str, Game] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def expire(self) -> int:
        """Drop the games idle for longer than ``idle_seconds``; return how many."""
        limit = self.clock() - self.idle_seconds
        dropped = 0
        with self._lock:
            while self._games:
                oldest = next(iter(self._games.values()))
                if oldest.last_seen >= limit:
                    break
                self._games.popitem(last=False)
                dropped += 1
        return dropped

    def create(
        self,
        rules_key: str,
        players: int,
        opponents: Sequence[str],
        seat: int = 0,
    ) -> Game:
        """A new game: the human at ``seat``, ``opponents`` (one name for every other seat,
        or one per other seat in seat order). Raises :class:`RequestError` naming the
        setting that cannot be played."""
        rules = self.catalog.rule_set(rules_key)
        try:
            rules.check_players(players)
        except RulesError as error:
            raise RequestError(str(error)) from None
        if not 0 <= seat < players:
            raise RequestError(f"seat must be 0..{players - 1}, got {seat}")
        names = list(opponents)
        if len(names) == 1:
            names *= players - 1
        if len(names) != players - 1:
            raise RequestError(
                f"{len(names)} opponents for {players - 1} other seats; give one agent for "
                "every seat or one per other seat"
            )
        seed = secrets.randbelow(2**62)  # the match seed: the deals; never sent during play
        seats: list[str | None] = [*names[:seat], None, *names[seat:]]
        agent_seeds = [seed % 2**31 + p for p in range(players)]
        agents = [
            None if name is None else self.catalog.agent(name, rules, players, agent_seeds[p])
            for p, name in enumerate(seats)
        ]
        labels = ["You" if name is None else f"{name} (seat {p})" for p, name in enumerate(seats)]
        match = WebMatch(rules, players, seat, agents, labels, seed)
        game = Game(
            id=secrets.token_urlsafe(GAME_ID_BYTES),
            match=match,
            rules_key=rules_key,
            opponents=seats,
            agent_seeds=agent_seeds,
            last_seen=self.clock(),
        )
        self.expire()
        with self._lock:
            while len(self._games) >= self.max_games:
                self._games.popitem(last=False)
            self._games[game.id] = game
        return game

    def drop(self, game_id: str) -> None:
        """Forget a game (if it is kept)."""
        with self._lock:
            self._games.pop(game_id, None)

    def get(self, game_id: str) -> Game:
        """The game ``game_id`` (seen now); :class:`RequestError` 404 if there is none."""
        self.expire()
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise RequestError(
                    "unknown game: no game has this id (games are dropped after "
                    f"{self.idle_seconds / 60:g} minutes without a move); start a new one",
                    404,
                )
            game.last_seen = self.clock()
            self._games.move_to_end(game_id)
        return game


def duplicate_baseline(catalog: Catalog, game: Game, name: str) -> dict[str, Any]:
    """How agent ``name`` scored from the human's seat on the same deals: the match's seed
    replayed (the engine deals every round of a seed alike whatever is played) with
    ``name`` in the human's seat and the same agents in the others, as
    :mod:`agents.evaluate` plays duplicate deals. Compared with the human's result."""
    from agents.arena import Match, play

    match = game.match
    if not match.over:
        raise RequestError("the baseline comes after the match: it is not over yet", 409)
    rules, players, seat = match.rules, match.players, match.seat
    seats, agents = [], {}
    for p, opponent in enumerate(game.opponents):
        key = f"seat {p}"
        agent_name = name if opponent is None else opponent
        agents[key] = catalog.agent(agent_name, rules, players, game.agent_seeds[p])
        seats.append(key)
    (result,) = play(rules, players, agents, [Match(match.seed, tuple(seats))], batch=1)
    human = match.result or {}
    bot_reward = float(result.rewards[seat])
    return {
        "agent": name,
        "place": result.ranking.index(seat) + 1,
        "total": int(result.totals[seat]),
        "reward": bot_reward,
        "rounds": int(result.rounds),
        "truncated": bool(result.truncated),
        "you": {
            "place": human.get("place"),
            "total": human.get("totals", [0] * players)[seat],
            "reward": human.get("reward"),
            "rounds": human.get("rounds"),
        },
        "difference": float(human.get("reward", 0.0)) - bot_reward,
    }
