"""train/run/signals.py: SIGINT and SIGTERM stop the run where it can stop, wait where it
cannot (a save), and a second one abandons an update that may be cut."""

from __future__ import annotations

import signal

import pytest

from train.run.signals import Interrupted, Signals


def test_a_signal_outside_a_hold_stops_at_once_and_names_itself() -> None:
    signals = Signals()
    with pytest.raises(Interrupted) as stop:
        signals._handle(signal.SIGTERM, None)
    assert stop.value.name == "SIGTERM" and not stop.value.abandon


def test_a_held_signal_waits_for_the_block_to_end() -> None:
    signals = Signals()
    signals.where = lambda: "saving"
    finished = []
    with pytest.raises(Interrupted), signals.hold():
        signals._handle(signal.SIGINT, None)  # waits
        finished.append("saved")
    assert finished == ["saved"] and signals.during == "saving"


def test_a_second_signal_abandons_a_block_that_may_be_cut() -> None:
    signals = Signals()
    notices = []
    hold = signals.hold(notice=lambda: notices.append("finishing"), second_stops=True)
    with pytest.raises(Interrupted) as stop, hold:
        signals._handle(signal.SIGINT, None)  # the first: a notice, the block goes on
        signals._handle(signal.SIGINT, None)
    assert notices == ["finishing"] and stop.value.abandon


def test_a_stopping_run_only_waits_and_check_stops_where_it_can() -> None:
    signals = Signals()
    signals.stopping = True
    signals._handle(signal.SIGINT, None)  # nothing raised: the run is already stopping
    signals.check()
    signals.stopping = False
    with pytest.raises(Interrupted):
        signals.check()


def test_install_takes_both_signals_and_uninstall_gives_them_back() -> None:
    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    signals = Signals()
    signals.install()
    try:
        assert signal.getsignal(signal.SIGTERM) == signals._handle
    finally:
        signals.uninstall()
    assert {number: signal.getsignal(number) for number in before} == before
