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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cachetools import LRUCache, TTLCache

from ...bots import catalog
from ...bots.policy import BasePolicy
from ...game.rules import PRESETS, Rules, RulesError, load_rules
from ...tools.errors import StoOdnoError
from .match import WebMatch

GAME_ID_BYTES = 18  # 144 random bits: unguessable


class RequestError(StoOdnoError):
    """A request the table cannot serve; ``status`` is its HTTP status (4xx)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class AgentInfo:
    """An agent as the table offers it. ``kind``: ``"bot"`` (plays any rules at any
    count), ``"recommended"`` (``ppo-<rules>``: the rule set's recommended policy, the file
    measured best at each count) or ``"policy"`` (one shipped policy file)."""

    name: str
    label: str
    kind: str = "bot"
    rules: str | None = None  # a trained policy: the rule set it plays
    players: tuple[int, ...] = ()  # ... and the player counts it serves
    card: str = ""  # ... and what it is (the index's model card)


def offered_agents() -> list[AgentInfo]:
    """The bots, then each rule set's recommended policy (``ppo-classic``, ...), then the
    shipped policy files, labelled with the rule set and player counts they serve (from
    the policy index, :mod:`sto_odno_env.bots.catalog`)."""
    from ...bots.names import BOT_NAMES  # the one resolver of names (agents.load's)

    offered = [AgentInfo(name, name) for name in BOT_NAMES]
    for alias, rules in catalog.aliases().items():
        counts = catalog.served_counts(alias)
        by_file: dict[str, list[int]] = {}
        for players, name in catalog.index().recommended[rules].items():
            by_file.setdefault(name, []).append(players)
        files = "; ".join(f"{catalog.count_span(n)} players: {name}" for name, n in by_file.items())
        label = f"{alias}: the recommended {rules} policy, {catalog.count_span(counts)} players"
        card = f"the {rules} policy measured best at each player count ({files})"
        offered.append(AgentInfo(alias, label, "recommended", rules, counts, card))
    for name, policy in catalog.policy_cards().items():
        if name in catalog.aliases():  # ppo-yard: the rule set's one file, already offered
            continue
        label = f"{name}: policy file, {policy.rules}, {catalog.count_span(policy.players)} players"
        offered.append(AgentInfo(name, label, "policy", policy.rules, policy.players, policy.card))
    return offered


class Catalog:
    """The rule sets (presets, and the variants of ``rules_dir``) and the agents on offer,
    with the tables (rule set and player count) each trained policy can sit at.

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
        self.agents = offered_agents()
        self.agent_names = [agent.name for agent in self.agents]
        self.tables = {agent.name: self._tables(agent) for agent in self.agents}
        self._policies: LRUCache[tuple, BasePolicy] = LRUCache(maxsize=8)
        self._lock = threading.Lock()

    def _tables(self, agent: AgentInfo) -> dict[str, list[int]] | None:
        """The offered rule sets ``agent`` plays (the one it was trained for, and the
        variants equal to it but for the name) and the counts it serves at each; ``None``
        for a bot (any table)."""
        if agent.rules is None:
            return None
        from ...bots.checkpoint import plays_alike

        trained = load_rules(agent.rules)
        return {
            key: [n for n in agent.players if n in range(rules.players[0], rules.players[1] + 1)]
            for key, rules in self.rules.items()
            if plays_alike(trained, rules)
        }

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

    def fits(self, name: str, rules_key: str, players: int) -> bool:
        """Whether agent ``name`` can sit at ``rules_key`` with ``players`` players."""
        tables = self.tables.get(name)
        return tables is None or players in tables.get(rules_key, ())

    def check_fits(self, name: str, rules_key: str, players: int, role: str = "agent") -> None:
        """Refuse (:class:`RequestError`) an unknown agent or a trained policy that does
        not play ``rules_key`` at ``players``, naming what it plays and the agents that do."""
        if name not in self.agent_names:
            raise RequestError(f"unknown {role} {name!r}; allowed: {', '.join(self.agent_names)}")
        if self.fits(name, rules_key, players):
            return
        agent = self.agents[self.agent_names.index(name)]
        allowed = [a for a in self.agent_names if self.fits(a, rules_key, players)]
        span = catalog.count_span(agent.players)
        raise RequestError(
            f"{role} {name!r} plays {agent.rules} at {span} players, not "
            f"{rules_key} at {players}; allowed there: {', '.join(allowed)}"
        )

    def agent(self, name: str, rules: Rules, players: int, seed: int) -> BasePolicy:
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
                policy = self._policies.get(key)
            if policy is None:
                policy = load(name, rules, players)
                with self._lock:
                    self._policies[key] = policy
            return policy
        except AgentError as error:  # named as offered, not by the server's file path
            from ...bots.registry import SHIPPED

            message = str(error)
            for file, path in SHIPPED.items():
                message = message.replace(f"'{path}'", repr(file)).replace(str(path), file)
            raise RequestError(message) from None


@dataclass
class Game:
    """A game in play: its match, what it was set up with, and its baselines."""

    id: str
    match: WebMatch
    rules_key: str
    opponents: list[str | None]  # the agent name in each seat, None for the human's
    agent_seeds: list[int]
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
        # Least recently seen first out when full; a game's clock restarts when it is
        # stored again, which get() does on every request.
        self._games: TTLCache[str, Game] = TTLCache(max_games, idle_seconds, timer=clock)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._games.expire()
            return len(self._games)

    def create(
        self,
        rules_key: str,
        players: int,
        opponents: Sequence[str],
        seat: int = 0,
    ) -> Game:
        """A new game: the human at ``seat`` (0-based), ``opponents`` (one name for every
        other seat, or one per other seat in seat order). Raises :class:`RequestError`
        naming the setting that cannot be played."""
        rules = self.catalog.rule_set(rules_key)
        try:
            rules.check_players(players)
        except RulesError as error:
            raise RequestError(str(error)) from None
        if not 0 <= seat < players:
            raise RequestError(f"seat (0-based) must be 0..{players - 1}, got {seat}")
        names = list(opponents)
        if len(names) == 1:
            names *= players - 1
        if len(names) != players - 1:
            raise RequestError(
                f"{len(names)} opponents for {players - 1} other seats; give one agent for "
                "every seat or one per other seat"
            )
        for name in dict.fromkeys(names):
            self.catalog.check_fits(name, rules_key, players)
        seed = secrets.randbelow(2**62)  # the match seed: the deals; never sent during play
        seats: list[str | None] = [*names[:seat], None, *names[seat:]]
        agent_seeds = [seed % 2**31 + p for p in range(players)]
        agents = [
            None if name is None else self.catalog.agent(name, rules, players, agent_seeds[p])
            for p, name in enumerate(seats)
        ]
        # Seats shown to people count from 1.
        labels = [
            "You" if name is None else f"{name} (seat {p + 1})" for p, name in enumerate(seats)
        ]
        match = WebMatch(rules, players, seat, agents, labels, seed)
        game = Game(
            id=secrets.token_urlsafe(GAME_ID_BYTES),
            match=match,
            rules_key=rules_key,
            opponents=seats,
            agent_seeds=agent_seeds,
        )
        with self._lock:
            self._games[game.id] = game
        return game

    def drop(self, game_id: str) -> None:
        """Forget a game (if it is kept)."""
        with self._lock:
            self._games.pop(game_id, None)

    def get(self, game_id: str) -> Game:
        """The game ``game_id`` (seen now); :class:`RequestError` 404 if there is none."""
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise RequestError(
                    "unknown game: no game has this id (games are dropped after "
                    f"{self.idle_seconds / 60:g} minutes without a move); start a new one",
                    404,
                )
            self._games[game_id] = game  # seen: its idle clock restarts
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
