"""Fixtures shared by the test files, and the test tiers.

Tiers: ``pytest -m "not slow"`` is the quick tier for the edit loop (every module is still
exercised there); ``slow`` marks the per-player-count and per-preset sweeps beyond one
representative case, the command-line runs in subprocesses, notebooks and trainings. CI
runs both (``scripts/test.sh``).

Optional extras: a test that needs one skips on a base install (``pip install -e .`` plus
pytest and hypothesis) through :func:`tests.helpers.need` or the fixtures below.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.helpers import need, sb3_vec_env

# The trainer tests that run whole trainings, resumes or the trainer's CLI in a subprocess
# (seconds each): slow. The quick tier keeps the smallest runs (the tiny run, the SB3 path,
# shipping and plotting a run: so every trainer module runs) and the unit tests of the parts.
SLOW_TRAININGS = {
    "test_train.py": {
        "test_resume_continues_the_run_exactly",
        "test_self_play_games_train_every_seat_and_resume_exactly",
        "test_the_cli_reports_errors_without_a_traceback",
        "test_shipped_policies_play_legal_moves_in_the_aec_and_vector_envs",
        "test_a_run_on_a_rule_set_of_other_sizes_trains_a_policy_for_it",
        "test_resume_from_a_policy_file_or_another_shape_is_refused",
        "test_checkpoints_load_without_running_code",
    },
}


@pytest.hookimpl(tryfirst=True)  # before -m "not slow" deselects by mark
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if getattr(item, "originalname", None) in SLOW_TRAININGS.get(item.path.name, ()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def torch() -> ModuleType:
    """torch, or skip (the train extra)."""
    return need("torch")


@pytest.fixture
def sb3_vec_env_class() -> type:
    """``sto_odno_env.envs.sb3.StoOdnoVecEnv``, or skip (the train extra)."""
    return sb3_vec_env()
