"""train/ppo_parts/state.py: what ``--resume`` reads is a checkpoint of this kit, and an
overlapped run's update generator is a stream of its own per update."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch", reason="needs torch (pip install -e '.[train]')")

from sto_odno_env.bots.checkpoint import CheckpointError
from sto_odno_env.bots.registry import SHIPPED
from tests.support.training import FIXTURES
from train.ppo_parts.state import learner_seed, read_checkpoint


def test_resume_refuses_what_is_not_a_checkpoint_of_this_kit(tmp_path: Path) -> None:
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError):
        read_checkpoint(junk)
    with pytest.raises(CheckpointError):
        read_checkpoint(tmp_path / "missing.pt")


def test_a_checkpoint_reads_as_its_config_and_counters() -> None:
    saved = read_checkpoint(FIXTURES / "ppo-one-process-update-2.pt")
    assert saved.counters.update == 2 and saved.config["rules"] == "classic"
    assert "training" in saved.data


def test_a_policy_file_without_training_state_is_not_resumable() -> None:
    policy = next(path for path in SHIPPED.values() if path.suffix == ".pt")
    with pytest.raises(CheckpointError, match="policy file without training state"):
        read_checkpoint(policy)


def test_the_learners_generator_differs_per_update_and_per_seed() -> None:
    seeds = {learner_seed(seed, update) for seed in (0, 1) for update in range(100)}
    assert len(seeds) == 200
