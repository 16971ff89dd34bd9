"""The notebooks in ``notebooks/`` run from top to bottom with their default (small)
parameters, and are committed without outputs.

Each runs in a fresh Jupyter kernel through nbclient, from the ``notebooks/`` folder, on a
copy (the committed file is never written). A notebook that raises fails the test with the
cell's traceback.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
NAMES = ["quickstart.ipynb", "evaluate_policies.ipynb"]
# Notebooks that take over ~30 s with their default parameters (none now: ~5 s and ~11 s).
SLOW: set[str] = set()


def read(name: str):
    return nbformat.read(NOTEBOOKS / name, as_version=4)


def test_the_notebooks_are_here():
    assert sorted(path.name for path in NOTEBOOKS.glob("*.ipynb")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_committed_without_outputs_and_with_parameters(name):
    book = read(name)
    code = [cell for cell in book.cells if cell.cell_type == "code"]
    assert all(not cell.outputs and cell.execution_count is None for cell in code), (
        f"{name} has outputs: clear them before committing "
        "(jupyter nbconvert --clear-output --inplace notebooks/*.ipynb)"
    )
    tagged = [cell for cell in code if "parameters" in cell.metadata.get("tags", [])]
    assert len(tagged) == 1 and code[0] is tagged[0], "the first code cell holds the parameters"


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else []) for n in NAMES]
)
def test_notebook_runs(name, tmp_path):
    book = read(name)
    env = {"MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    os.environ.update({k: v for k, v in env.items() if k not in os.environ})
    client = nbclient.NotebookClient(
        book,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()
    errors = [
        output
        for cell in book.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert not errors
    images = sum(
        "image/png" in output.get("data", {}) or "image/svg+xml" in output.get("data", {})
        for cell in book.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    assert images >= 3, f"{name} showed {images} pictures"
    nbformat.write(book, tmp_path / name)  # the executed copy, for a look when it fails
