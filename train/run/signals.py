"""Ctrl-C (SIGINT) and SIGTERM in a training run: :class:`Signals` raises
:class:`Interrupted` where the run can stop, and holds a signal where it cannot (a save, or
an update of a trainer that cannot be cut), raising it when the held block ends.

Built on the kit's one signal helper, ``sto_odno_env.tools.cli`` (its :class:`~cli.Stopped`,
``STOP_SIGNALS`` and ``EXIT_STOPPED``); a run needs two things more: it remembers the
phase the first signal came in (for the stop line), and a second signal during an update
that cannot be cut stops at once without it."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from types import FrameType

from sto_odno_env.tools import cli


class Interrupted(cli.Stopped):
    """SIGINT or SIGTERM arrived; ``abandon``: a second one, stop without saving the
    update in progress."""

    def __init__(self, signum: int, abandon: bool = False):
        super().__init__(signum)
        self.abandon = abandon

    @property
    def name(self) -> str:
        """The signal's name (``SIGINT``, ``SIGTERM``), as the run's stop line says it."""
        return signal.Signals(self.signum).name


Handler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None


class Signals:
    """SIGINT and SIGTERM as :class:`Interrupted`, raised where the run can stop and held
    where it cannot (:meth:`hold`: a save, or an update that must not be cut)."""

    def __init__(self) -> None:
        self.received: int | None = None
        self.stopping = False  # the run is already stopping: later signals only wait
        self.where: Callable[[], str] = lambda: ""  # what the run is doing (its phase)
        self.during = ""  # what it was doing when the first signal came
        self._holds = 0
        self._soft = False
        self._notice: Callable[[], None] | None = None
        self._previous: dict[int, Handler] = {}

    def install(self) -> None:
        """Take SIGINT and SIGTERM (again: ``ray.init`` sets its own SIGTERM handler). A
        shell starts background jobs with SIGINT ignored; Ctrl-C is wanted here too."""
        for number in cli.STOP_SIGNALS:
            previous = signal.signal(number, self._handle)
            self._previous.setdefault(number, previous)

    def uninstall(self) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, previous)
        self._previous.clear()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        first = self.received is None
        if first:
            self.received = signum
            self.during = self.where()
        if self.stopping or (self._holds and not self._soft):
            return
        if self._holds:  # an update that must not be cut
            if first:
                if self._notice is not None:
                    self._notice()
                return
            raise Interrupted(signum, abandon=True)
        raise Interrupted(signum)

    @contextlib.contextmanager
    def hold(
        self, notice: Callable[[], None] | None = None, second_stops: bool = False
    ) -> Iterator[None]:
        """Signals wait until the block ends, then stop the run (:class:`Interrupted`);
        ``second_stops``: a second signal stops at once (the block's work is lost)."""
        self._holds += 1
        soft, self._soft = self._soft, second_stops
        notice_before, self._notice = self._notice, notice
        try:
            yield
        finally:
            self._holds -= 1
            self._soft, self._notice = soft, notice_before
        if not self._holds and self.received is not None and not self.stopping:
            raise Interrupted(self.received)

    def check(self) -> None:
        """Stop here if a signal arrived while held."""
        if self.received is not None and not self.stopping:
            raise Interrupted(self.received)
