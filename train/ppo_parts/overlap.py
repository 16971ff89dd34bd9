"""Overlapped training for ``train/ppo.py`` (``overlap: true``): the next rollout is
collected in a second process while this one trains on the last.

Two processes, one core each:

* the **collector** (a ``spawn``-ed child) holds the games, the league and its snapshots, the
  self-play games and the sampling generator, and a copy of the actor and critic; it
  collects rollout ``j`` (and its GAE, with the critic that collected it) into one of two
  shared rollout buffers, ``j % 2``;
* the **learner** (the command's process) runs the PPO update on rollout ``j`` while rollout
  ``j + 1`` is collected, then publishes its weights into one of two shared weight buffers
  and frees the rollout buffer; it also evaluates and writes checkpoints.

Rollout ``j`` is collected with the weights of update ``j - 2`` (one update behind the
weights it trains; rollouts 1 and 2 of a fresh run both with the starting weights), a fixed
rule, not "whatever is newest", so an overlapped run is deterministic and can be resumed
exactly. A snapshot of update ``u`` joins the league when the collector takes those weights
(before rollout ``u + 2``). PPO's ratio against the stored behaviour log-probabilities
corrects the lag; the update itself is the same code as in one process.

Messages are small and go through two pipes (learner to collector: ``weights``, ``free``,
``state``, ``stop``; collector to learner: ``rollout``, ``state``, ``error``); the rollouts
and the weights go through shared memory. The collector keeps its state at the start of
its last rollouts, so a checkpoint of update ``k`` holds the learner at ``k`` and the
collector at the start of rollout ``k + 1``: a resumed run restarts the collector there and
continues as the uninterrupted run would have.

Signals: the collector ignores SIGINT and SIGTERM (a terminal's Ctrl-C reaches the whole
process group); the learner's run harness stops the run, saves the last finished update and
stops the collector (:meth:`Collector.close`). A collector whose learner is gone (killed)
notices within a second and exits.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import signal
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from sto_odno_env.tools import cli

if TYPE_CHECKING:
    from train.config_keys import TrainConfig

SIGNALS = cli.STOP_SIGNALS
ROLLOUT_FIELDS = ("obs", "masks", "actions", "logprobs", "values", "advantages", "returns")
KEPT_STATES = 3  # the learner may ask for the state at the start of rollout k + 1 or k + 2
POLL_SECONDS = 0.5


@dataclass
class Rollout:
    """One collected rollout as the learner sees it: views of a shared buffer (valid until
    :meth:`Collector.finished`), the learner matches that ended, the league scores so far
    and the self-play rows."""

    index: int
    tensors: dict[str, torch.Tensor]
    episodes: int
    member_score: np.ndarray
    member_games: np.ndarray
    self_play: dict[str, torch.Tensor] | None


class CollectorError(RuntimeError):
    """The collector process failed or vanished."""


def rollout_buffers(
    steps: int, games: int, obs_size: int, num_actions: int
) -> list[dict[str, torch.Tensor]]:
    """Two shared rollout buffers of the trainer's storage shapes."""
    shape = (steps, games)
    buffers = []
    for _ in range(2):
        buffers.append(
            {
                "obs": torch.zeros((*shape, obs_size)),
                "masks": torch.zeros((*shape, num_actions), dtype=torch.bool),
                "actions": torch.zeros(shape, dtype=torch.long),
                "logprobs": torch.zeros(shape),
                "values": torch.zeros(shape),
                "advantages": torch.zeros(shape),
                "returns": torch.zeros(shape),
            }
        )
    for buffer in buffers:
        for tensor in buffer.values():
            tensor.share_memory_()
    return buffers


def _dumps(data: Any) -> bytes:
    buffer = io.BytesIO()
    torch.save(data, buffer)
    return buffer.getvalue()


def _loads(raw: bytes) -> Any:
    return torch.load(io.BytesIO(raw), weights_only=False)


# --- the learner's side ----------------------------------------------------------------------


class Collector:
    """The learner's handle on the collector process (see the module docstring)."""

    def __init__(
        self,
        config: TrainConfig,
        rules: Any,
        state: dict[str, Any],
        weights: list[torch.Tensor],
        shapes: tuple[int, int, int, int],
        trainer: type,
    ):
        """Start the collector at ``state`` (:meth:`train.ppo_parts.state.PPOState.handover`, whose
        ``"rollout"`` is the next rollout's index) and publish ``weights``, the learner's
        at update ``state["rollout"] - 1``. ``trainer`` is the trainer class the collector
        builds (:class:`train.ppo.PPO`: passed in, so this module does not import its user)."""
        context = torch.multiprocessing.get_context("spawn")
        self.buffers = rollout_buffers(*shapes)
        self.weights = [[t.detach().cpu().clone().share_memory_() for t in weights] for _ in "ab"]
        inbox, self._to_collector = context.Pipe(duplex=False)
        self._from_collector, outbox = context.Pipe(duplex=False)
        collector_config = dataclasses.replace(config, device="cpu")  # it samples on the CPU
        self.process = context.Process(
            target=_collector_main,
            args=(
                collector_config,
                rules,
                _dumps(state),
                self.buffers,
                self.weights,
                inbox,
                outbox,
                os.getpid(),
                trainer,
            ),
            name="sto-odno-collector",
            daemon=True,  # multiprocessing ends it at exit if close() was never reached
        )
        self._waiting: list[tuple] = []  # messages received before they were wanted
        try:
            self._start()
            inbox.close()
            outbox.close()
            self.publish(state["rollout"] - 1, weights)
        except BaseException:  # a stop that came while it started: nobody else can close it
            self.close()
            raise

    @property
    def pid(self) -> int | None:
        """The collector process's id (None before it starts)."""
        return self.process.pid

    def _start(self) -> None:
        """Start the process with SIGINT and SIGTERM ignored, which it keeps across exec (it
        must outlive a Ctrl-C to the process group until the learner stops it). The
        learner's own handlers are back once the child has started; a signal in between
        waits if this thread takes it (blocked here) and is lost if another one does.

        Not a blocked mask in the child instead: its imports start threads that take the
        signal, and Python raises KeyboardInterrupt in its main thread all the same."""
        previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
        try:
            handlers = {number: signal.signal(number, signal.SIG_IGN) for number in SIGNALS}
            try:
                self.process.start()
            finally:
                for number, handler in handlers.items():
                    signal.signal(number, handler)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)

    def publish(self, version: int, weights: list[torch.Tensor]) -> None:
        """The learner's weights after update ``version``, for rollout ``version + 2``."""
        with torch.no_grad():
            for shared, tensor in zip(self.weights[version % 2], weights, strict=True):
                shared.copy_(tensor)
        self._send(("weights", version))

    def rollout(self, index: int) -> Rollout:
        """Wait for rollout ``index``."""
        message = self._receive("rollout", index)
        _, _, episodes, score, games, self_play = message
        if self_play is not None:
            self_play = {key: torch.from_numpy(value) for key, value in self_play.items()}
        return Rollout(index, self.buffers[index % 2], episodes, score, games, self_play)

    def finished(self, index: int, weights: list[torch.Tensor]) -> None:
        """Update ``index`` is done: its weights go out, its rollout buffer is free."""
        self.publish(index, weights)
        self._send(("free", index))

    def state(self, index: int) -> dict[str, Any]:
        """The collector's state at the start of rollout ``index`` (for a checkpoint)."""
        self._send(("state", index))
        return _loads(self._receive("state", index)[2])

    def close(self, timeout: float = 20.0) -> None:
        """Stop the collector and wait for it (terminated after ``timeout`` seconds)."""
        if self.process.pid is None:
            return
        if self.process.is_alive():
            with contextlib.suppress(OSError, ValueError):
                self._send(("stop",))
            self.process.join(timeout)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self._to_collector.close()
        self._from_collector.close()

    def _send(self, message: tuple) -> None:
        with cli.deferred():
            self._to_collector.send(message)

    def _receive(self, kind: str, index: int) -> tuple:
        for position, message in enumerate(self._waiting):
            if message[0] == kind and message[1] == index:
                return self._waiting.pop(position)
        while True:
            if not self._from_collector.poll(POLL_SECONDS):
                if not self.process.is_alive():
                    raise CollectorError(
                        f"the collector process stopped (exit code {self.process.exitcode}) "
                        f"before sending {kind} {index}"
                    )
                continue
            try:
                with cli.deferred():
                    message = self._from_collector.recv()
            except EOFError:
                raise CollectorError(
                    f"the collector process closed its pipe before sending {kind} {index}"
                ) from None
            if message[0] == "error":
                raise CollectorError(f"the collector process failed:\n{message[1]}")
            if message[0] == kind and message[1] == index:
                return message
            self._waiting.append(message)


# --- the collector's side --------------------------------------------------------------------


class _Stop(Exception):
    """The learner asked the collector to stop, or is gone."""


def _collector_main(
    config: TrainConfig,
    rules: Any,
    state: bytes,
    buffers: list[dict[str, torch.Tensor]],
    weights: list[list[torch.Tensor]],
    inbox: Any,
    outbox: Any,
    learner: int,
    trainer: type,
) -> None:
    """The collector process (see the module docstring)."""
    for number in SIGNALS:
        signal.signal(number, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
    torch.set_num_threads(1)
    try:
        state_now = _loads(state)
        _Loop(config, rules, state_now, buffers, weights, inbox, outbox, learner, trainer).run()
    except _Stop:
        pass
    except BaseException:  # the learner raises it as a CollectorError with this text
        with contextlib.suppress(OSError, ValueError):
            outbox.send(("error", traceback.format_exc()))
    finally:
        outbox.close()


class _Loop:
    """The collector's loop: it drives a trainer of the learner's class through its public
    collector methods (``take_over``, ``use_storage``, ``collect``, ``league_scores``,
    ``handover``, ``network_tensors``)."""

    def __init__(self, config, rules, state, buffers, weights, inbox, outbox, learner, trainer):
        from train.run.protocol import Settings

        settings = Settings(config, rules, Path(config.out), {}, None, None, frozenset(), False)
        self.trainer = trainer(settings)
        self.trainer.take_over(state)
        self.tensors = self.trainer.network_tensors()
        self.buffers, self.weights = buffers, weights
        self.inbox, self.outbox, self.learner = inbox, outbox, learner
        self.first = self.next = int(state["rollout"])
        self.version = -1  # the newest weights the learner announced
        self.free = {0, 1}
        self.kept: dict[int, dict[str, Any]] = {}  # copies; serialised only when asked
        self.asked: set[int] = set()

    def run(self) -> None:
        trainer = self.trainer
        every = trainer.config.league.snapshot_every
        while True:
            index = self.next
            while index % 2 not in self.free or (index > self.first and self.version < index - 2):
                self._handle(self._wait())
            while self.inbox.poll():
                self._handle(self._recv())
            if index > self.first:  # the weights of update index - 2
                with torch.no_grad():
                    for tensor, shared in zip(self.tensors, self.weights[index % 2], strict=True):
                        tensor.copy_(shared)
                update = index - 2
                if update > 0 and update % every == 0:
                    trainer.tables.add_snapshot(update)  # once: a resumed collector may repeat
            self._keep(index)
            buffer = self.buffers[index % 2]
            self.free.discard(index % 2)
            trainer.use_storage(buffer)
            episodes, self_play, advantages, returns = trainer.collect()
            buffer["advantages"].copy_(advantages)
            buffer["returns"].copy_(returns)
            if self_play is not None:
                self_play = {key: value.cpu().numpy() for key, value in self_play.items()}
            self.outbox.send(("rollout", index, episodes, *trainer.league_scores(), self_play))
            self.next = index + 1

    def _keep(self, index: int) -> None:
        self.kept[index] = self.trainer.handover(index)
        for old in [i for i in self.kept if i <= index - KEPT_STATES]:
            del self.kept[old]
        if index in self.asked:
            self._answer(index)

    def _answer(self, index: int) -> None:
        self.asked.discard(index)
        self.outbox.send(("state", index, _dumps(self.kept[index])))

    def _handle(self, message: tuple) -> None:
        kind = message[0]
        if kind == "stop":
            raise _Stop
        if kind == "weights":
            self.version = max(self.version, message[1])
        elif kind == "free":
            self.free.add(message[1] % 2)
        elif kind == "state":
            index = message[1]
            if index in self.kept:
                self._answer(index)
            elif index >= self.next:  # not started yet: answered at its start
                self.asked.add(index)
            else:
                raise RuntimeError(f"the state at rollout {index} is no longer kept")

    def _wait(self) -> tuple:
        while not self.inbox.poll(POLL_SECONDS):
            if os.getppid() != self.learner:  # the learner is gone
                raise _Stop
        return self._recv()

    def _recv(self) -> tuple:
        try:
            return self.inbox.recv()
        except (EOFError, OSError):
            raise _Stop from None
