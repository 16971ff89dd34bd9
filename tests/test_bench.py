"""The benchmark runs end to end and prints every section (speed is not asserted)."""

from __future__ import annotations

import pytest

from sto_odno_env.apps import bench
from tests.helpers import needs


@pytest.mark.slow  # ~20 s: every section, peers included
@needs("pyspiel", "shimmy")  # the peers (the bench extra)
def test_bench_prints_every_section(capsys):
    bench.main(["--quick", "--profile"])
    text = capsys.readouterr().out
    for heading in (
        "## Engine",
        "## OpenSpiel crazy_eights",
        "## PettingZoo AEC envs",
        "## Vector env",
        "## Where an AEC turn goes",
    ):
        assert heading in text, heading
    assert "state B/game" in text and "x agent decisions/s" in text
