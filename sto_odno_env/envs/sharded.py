"""Learner games split across worker processes, so the batched engine runs on every core.

:class:`ShardedLearnerGames` has the interface of :class:`~sto_odno_env.envs.learner.LearnerGames`
(``reset``, ``step``, ``masks``, ``observe``, ``learner``, ``set_opponents``) and is what the
vector envs use with ``workers > 1``. Games are cut into ``workers`` contiguous shards; each
worker process steps its shard with its own ``LearnerGames`` and writes observations,
rewards, flags and legal actions into shared memory, so a step moves no arrays through
pipes. One step costs the slowest shard's step plus a few tens of microseconds of
messaging.

With ``ready_share`` each worker applies the share to its own shard, so a step returns
once every shard is that ready; ``result["ready"]`` marks the games at the learner's turn.

Game ``b`` plays the same match seeds as it does with one worker, and opponents that
decide from the observation (the bots of ``agents``) play the same games. Random
opponents draw from one generator per shard, so their choices depend on the number of
workers (as they depend on the batch size with one). Opponent policies are sent to the
workers by pickling; the workers are started with ``multiprocessing``'s ``spawn`` method
by default (safe with torch and threads).

A Ctrl-C (or any exception) that cuts a call short, a notebook's interrupt in the middle of a
step, closes the games, which then say so when used: the workers' replies to the cut call
would otherwise answer the next one. The workers ignore SIGINT (the main process decides).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal
import traceback
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from ..game import engine, rng
from ..game.rules import Rules
from ..views.observation import obs_size
from .learner import LearnerGames
from .table_config import TableConfig, integer_actions, table_config


def _buffers(size: int) -> tuple[tuple[str, tuple[int, ...], Any], ...]:
    """(name, per-game shape, dtype) of the shared result buffers, for observations of
    ``size`` entries (the rule set's ``obs_size``)."""
    return (
        ("actions", (), np.int64),
        ("observation", (size,), np.float32),
        ("final_observation", (size,), np.float32),
        ("reward", (), np.float32),
        ("terminated", (), np.bool_),
        ("truncated", (), np.bool_),
        ("illegal", (), np.bool_),
        ("legal_bits", (), np.uint64),
        ("learner", (), np.int8),
        ("phase", (), np.int8),
        ("ready", (), np.bool_),
    )


def _views(raw: dict[str, Any], batch: int, size: int) -> dict[str, np.ndarray]:
    return {
        name: np.frombuffer(raw[name], dtype=dtype).reshape(batch, *shape)
        for name, shape, dtype in _buffers(size)
    }


class WorkerError(RuntimeError):
    """An exception raised in a worker process (its traceback is in the message)."""


def _worker(
    connection: Connection,
    raw: dict[str, Any],
    batch: int,
    low: int,
    high: int,
    config: TableConfig,
) -> None:
    """A worker's loop: serve reset/step/set_opponents on games ``low..high-1``."""
    # A terminal's Ctrl-C reaches the whole process group: the main process decides (an
    # interrupted call closes the games), so a worker prints no KeyboardInterrupt of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    size = obs_size(config.rules)
    shared = {name: view[low:high] for name, view in _views(raw, batch, size).items()}
    games = LearnerGames(batch=high - low, copy=False, config=config)  # published by copying

    def publish() -> None:
        shared["observation"][:] = games.obs
        shared["legal_bits"][:] = games.state.legal_bits
        shared["learner"][:] = games.learner
        shared["phase"][:] = games.state.phase

    while True:
        try:
            command, argument = connection.recv()
        except EOFError:  # the main process is gone
            break
        try:
            if command == "close":
                break
            if command == "reset":
                games.reset(seeds=argument)
                shared["ready"][:] = True  # a reset plays every game to the learner's turn
                publish()
                connection.send(("ok", None))
            elif command == "step":
                result = games.step(shared["actions"])
                for name in ("reward", "terminated", "truncated", "illegal", "ready"):
                    shared[name][:] = result[name]
                final = result["final_observation"]
                if final is not None:
                    shared["final_observation"][:] = final
                publish()
                connection.send(("ok", final is not None))
            elif command == "set_opponents":
                games.set_opponents(argument)
                connection.send(("ok", None))
            else:
                raise ValueError(f"unknown command {command!r}")
        except Exception as error:  # reported to the main process, which raises
            connection.send(("error", f"{type(error).__name__}: {error}\n{traceback.format_exc()}"))
    connection.close()


class ShardedLearnerGames:
    """B learner games stepped by ``workers`` processes (see the module docstring).

    Settings as :class:`~sto_odno_env.envs.learner.LearnerGames` (``config``, or ``rules``,
    ``players`` and keyword arguments that build it); ``workers`` is 2 unless given.
    """

    def __init__(
        self,
        rules: str | Rules | None = None,
        players: int | None = None,
        batch: int = 1,
        *,
        seed: int | None = None,
        copy: bool = True,
        start_method: str = "spawn",
        config: TableConfig | None = None,
        **settings: Any,
    ):
        if config is None:
            settings.setdefault("workers", 2)
        # Bad settings fail here (the config checks them), not in a worker.
        config = table_config(config, rules=rules, players=players, **settings)
        workers = config.workers
        if workers > batch:
            raise ValueError(f"workers={workers} is more than the {batch} games to share")
        self.config = config
        self.rules = config.rules
        self.players = config.players
        self.batch = batch
        self.workers = workers
        self.illegal_action = config.illegal_action
        self.copy = copy
        self._pending_seed = seed
        context = mp.get_context(start_method)
        raw = {
            name: context.RawArray(
                "b", max(1, batch * int(np.prod(shape)) * np.dtype(dtype).itemsize)
            )
            for name, shape, dtype in _buffers(obs_size(self.rules))
        }
        self._shared = _views(raw, batch, obs_size(self.rules))
        bounds = np.linspace(0, batch, workers + 1).astype(int)
        self._shards = list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))
        self._connections = []
        self._processes = []
        for low, high in self._shards:
            ours, theirs = context.Pipe()
            # typeshed's BaseContext (what get_context(str) returns) lacks Process; every
            # concrete context has it
            process = context.Process(  # type: ignore[attr-defined]
                target=_worker,
                args=(theirs, raw, batch, low, high, config.replace(workers=1)),
                daemon=True,
                name=f"sto-odno-worker-{low}-{high}",
            )
            process.start()
            theirs.close()
            self._connections.append(ours)
            self._processes.append(process)
        self._closed = False
        self._closed_because = "these games are closed"

    # --- messaging ---------------------------------------------------------------------------

    def _call(self, command: str, arguments: list[Any] | None = None) -> list[Any]:
        if self._closed:
            raise RuntimeError(self._closed_because)
        try:
            for index, connection in enumerate(self._connections):
                connection.send((command, None if arguments is None else arguments[index]))
            replies = [self._receive(index) for index in range(len(self._connections))]
        except WorkerError:
            raise
        except BaseException as stop:
            # A reply still on its way would answer the next command as if it were its
            # own (the pipes out of step): the games end here, and say why when used.
            self.close()
            self._closed_because = (
                f"these games were closed when {type(stop).__name__} cut a {command!r} "
                "short (their workers' replies were lost); make new ones"
            )
            raise
        for status, payload in replies:
            if status == "error":
                raise WorkerError(f"a worker failed: {payload}")
        return [payload for _, payload in replies]

    def _receive(self, index: int) -> tuple[str, Any]:
        try:
            return self._connections[index].recv()
        except (EOFError, OSError):
            process = self._processes[index]
            process.join(timeout=1)
            self.close()
            raise WorkerError(
                f"worker {index} exited (exit code {process.exitcode}). With the 'spawn' or "
                "'forkserver' start method the script must create the env under "
                "`if __name__ == '__main__':`; its error is printed above."
            ) from None

    # --- the LearnerGames interface --------------------------------------------------------

    @property
    def learner(self) -> np.ndarray:
        """(B,) int8 the learner's seat in every game."""
        return self._shared["learner"]

    @property
    def legal_bits(self) -> np.ndarray:
        """(B,) uint64 the learner's legal actions as bit masks (bit ``a``: action ``a``)."""
        return self._shared["legal_bits"]

    def reset(self, seed: int | None = None, seeds: np.ndarray | None = None) -> np.ndarray:
        """Start a match in every game (seeds as :meth:`LearnerGames.reset`)."""
        if seeds is None:
            if seed is None:
                seed = self._pending_seed
            if seed is None:
                seed = int(np.random.SeedSequence().generate_state(1)[0])
            seeds = rng.game_seeds(int(seed), self.batch)
        seeds = np.asarray(seeds, dtype=np.int64).reshape(self.batch)
        self._pending_seed = None
        self._call("reset", [seeds[low:high] for low, high in self._shards])
        return self.observe()

    def step(self, actions: np.ndarray) -> dict[str, Any]:
        """Apply the learner's actions in every game (as :meth:`LearnerGames.step`)."""
        actions = integer_actions(actions, self.batch)
        if self.illegal_action == "raise":
            self._check_legal(actions)
        self._shared["actions"][:] = actions
        finals = self._call("step")
        shared = self._shared
        # Copies: the shared buffers are rewritten by the next step.
        return {
            "observation": self.observe(),
            "reward": shared["reward"].copy(),
            "terminated": shared["terminated"].copy(),
            "truncated": shared["truncated"].copy(),
            "illegal": shared["illegal"].copy(),
            "ready": shared["ready"].copy(),
            "final_observation": self._final_observation(finals),
        }

    def _final_observation(self, finals: list[bool]) -> np.ndarray | None:
        if not any(finals):
            return None
        final = np.zeros(self._shared["final_observation"].shape, dtype=np.float32)
        shared = self._shared
        for (low, high), has_final in zip(self._shards, finals, strict=True):
            if has_final:
                ended = shared["terminated"][low:high] | shared["truncated"][low:high]
                rows = low + np.flatnonzero(ended)
                final[rows] = shared["final_observation"][rows]
        return final

    def _check_legal(self, actions: np.ndarray) -> None:
        """Refuse an illegal action before any worker steps (so no shard changes), with the
        message the engine gives: the learner is the player to act in every game that is
        ready (every game without ``ready_share``; the others' actions are ignored)."""
        legal = engine.is_legal(self.legal_bits, actions) | ~self._shared["ready"]
        if legal.all():
            return
        game = int(np.flatnonzero(~legal)[0])
        raise engine.IllegalActionError(
            engine.illegal_bits_message(
                int(self.legal_bits[game]),
                int(actions[game]),
                game=game,
                player=int(self.learner[game]),
                phase=int(self._shared["phase"][game]),
                deck=self.rules.deck_spec,
            )
        )

    def masks(self) -> np.ndarray:
        """(B, A) int8 legal actions of the learner (A: the rule set's number of actions)."""
        return engine.unpack_actions(self.legal_bits, self.rules.num_actions)

    def observe(self) -> np.ndarray:
        """The learner's observations of every game: a copy, or with ``copy=False`` the
        shared buffer itself (rewritten by the next step)."""
        observations = self._shared["observation"]
        return observations.copy() if self.copy else observations

    def set_opponents(self, opponents: Any) -> None:
        """Replace the opponent policies in every worker (checked here, then pickled)."""
        self.config = self.config.replace(opponents=opponents)
        self._call("set_opponents", [self.config.opponents] * self.workers)

    def close(self) -> None:
        """Stop the workers (also done when the games are garbage-collected)."""
        if self._closed:
            return
        self._closed = True
        for connection in self._connections:
            with contextlib.suppress(BrokenPipeError, OSError):
                connection.send(("close", None))
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        for connection in self._connections:
            connection.close()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True):
            self.close()


def learner_games(
    config: TableConfig | None = None,
    *,
    batch: int = 1,
    seed: int | None = None,
    copy: bool = True,
    **settings: Any,
) -> Any:
    """``batch`` games of the table ``config`` (or of the keyword ``settings``): one
    process's :class:`~sto_odno_env.envs.learner.LearnerGames` (``workers=1``), or
    :class:`ShardedLearnerGames` stepping them in ``workers`` processes."""
    config = table_config(config, **settings)
    if config.workers == 1:
        return LearnerGames(batch=batch, seed=seed, copy=copy, config=config)
    return ShardedLearnerGames(batch=batch, seed=seed, copy=copy, config=config)
