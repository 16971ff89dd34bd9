"""Array helpers of the engine: flat cell views, bit tests and action bit masks."""

from __future__ import annotations

import numpy as np

# The C count behind np.count_nonzero: the public function's dispatch wrapper costs three
# times the count itself on a step's one-game arrays (numpy 2 keeps it in numpy._core; a
# numpy that moves it gets the public function, the same count).
try:
    from numpy._core.multiarray import count_nonzero as _count_nonzero
except ImportError:  # pragma: no cover - numpy's private layout changed
    _count_nonzero = np.count_nonzero

# Constant operands are 0-d arrays of the operands' dtype: numpy converts a Python or NumPy
# scalar operand on every call, which costs about as much again as the operation itself on
# the one game of an OpenSpiel step (the same holds for in-place operators and index arrays
# that are not intp, which the hot paths avoid for that reason).
U64_0 = np.array(0, dtype=np.uint64)
U64_1 = np.array(1, dtype=np.uint64)
I16_0 = np.array(0, dtype=np.int16)  # card counts (stock_size, discard_size, pending)
I16_1 = np.array(1, dtype=np.int16)
I32_1 = np.array(1, dtype=np.int32)  # turn counts


_WIDTHS = [np.array(width, dtype=np.intp) for width in range(65)]  # 0-d row widths


def cells(
    array: np.ndarray, games: np.ndarray, columns: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A flat view of a (B, n) array (n <= 64) and the flat indices of [games, columns]:
    one-dimensional gathers and scatters cost a fraction of two-dimensional fancy indexing."""
    if array.shape[0] == 1:  # one game (an OpenSpiel state): its row is the flat view
        return array.ravel(), columns.astype(np.intp, copy=False)
    return array.ravel(), games * _WIDTHS[array.shape[1]] + columns


def any_set(mask: np.ndarray) -> bool:
    """Whether any entry is set."""
    # count_nonzero is a fraction of the cost of ndarray.any() on the small arrays of a
    # step's later rounds; the engine asks this ~10 times per round.
    return _count_nonzero(mask) != 0


def all_set(mask: np.ndarray) -> bool:
    """Whether every entry is set."""
    return _count_nonzero(mask) == mask.size


def unpack_actions(bits: np.ndarray, count: int) -> np.ndarray:
    """(n, count) int8 masks from action bit masks (``count``: the rule set's number of
    actions, ``RuleTables.num_actions``)."""
    bits = np.ascontiguousarray(bits, dtype=np.uint64)
    return np.unpackbits(
        bits.view(np.uint8).reshape(-1, 8), axis=1, count=count, bitorder="little"
    ).view(np.int8)
