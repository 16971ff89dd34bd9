"""Counter-based random numbers, one independent stream per game.

Each game holds a 64-bit key and a counter; the n-th number of its stream is
``splitmix64(key + n * golden)``. A game's randomness therefore depends only on its own seed,
never on the other games of the batch or on the batch size, and no global RNG is touched.
"""

from __future__ import annotations

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_SHIFT27, _SHIFT30, _SHIFT31 = np.uint64(27), np.uint64(30), np.uint64(31)
_KEY_SALT = np.uint64(0xD1B54A32D192ED03)
DEAL_SALT = np.uint64(0x8CB92BA72F3D8DD7)  # separates the per-round deal stream
SEED_MASK = (1 << 63) - 1  # seeds in records are non-negative int64


def mix64(values: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser, element-wise on uint64 (wraps modulo 2**64)."""
    return _mix_in_place(np.array(values, dtype=np.uint64))  # a copy, worked on in place


def _mix_in_place(z: np.ndarray) -> np.ndarray:
    z ^= z >> _SHIFT30
    z *= _MIX1
    z ^= z >> _SHIFT27
    z *= _MIX2
    z ^= z >> _SHIFT31
    return z


def key_of_seed(seeds: np.ndarray) -> np.ndarray:
    """The stream key of each match seed."""
    return mix64(np.asarray(seeds, dtype=np.int64).astype(np.uint64) ^ _KEY_SALT)


def game_seeds(seed: int, batch: int) -> np.ndarray:
    """Match seeds of games ``0..batch-1`` of a batch seeded with ``seed`` (int64 >= 0).

    Game ``b`` gets the same seed whatever the batch size, so a batch of 1 reproduces any
    game of a larger batch.
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    base = np.full(batch, int(seed) & ((1 << 64) - 1), dtype=np.uint64)
    index = np.arange(batch, dtype=np.uint64)
    return (mix64(base * _GOLDEN + index + np.uint64(1)) >> np.uint64(1)).astype(np.int64)


def next_seeds(seeds: np.ndarray) -> np.ndarray:
    """The seed of the match that follows in the same slot after an auto-reset."""
    return (mix64(key_of_seed(seeds) + _GOLDEN) >> np.uint64(1)).astype(np.int64)


_STEP_OFFSETS = np.arange(64, dtype=np.uint64) * _GOLDEN  # n * golden for the first counts


def draw_u64(keys: np.ndarray, counters: np.ndarray, count: int) -> np.ndarray:
    """``count`` numbers per game from streams ``keys`` at ``counters`` (not advanced here)."""
    if count <= _STEP_OFFSETS.size:
        offsets = _STEP_OFFSETS[:count]
    else:
        offsets = np.arange(count, dtype=np.uint64) * _GOLDEN
    # key + (counter + n) * golden, wrapping modulo 2**64
    return _mix_in_place((keys + counters * _GOLDEN)[:, None] + offsets[None, :])
