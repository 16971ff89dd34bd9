"""The notebooks in ``notebooks/`` run from top to bottom with their default (small)
parameters, and are committed without outputs.

Each runs in a fresh Jupyter kernel through nbclient, from the ``notebooks/`` folder, on a
copy (the committed file is never written). A notebook that raises fails the test with the
cell's traceback. Every chart it draws must say what it shows (a title, and an axis label
on the figure), and an axis of rounds must tick whole rounds.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
NAMES = ["quickstart.ipynb", "evaluate_policies.ipynb", "exact_micro.ipynb"]
# Each runs in its own Jupyter kernel (~5 s and ~11 s): the whole suite runs them.
SLOW: set[str] = set(NAMES)


# Run first in the kernel: after each cell, before the inline backend shows and closes the
# figures, note every chart's title, labels and ticks.
WATCH_CHARTS = """
import sys
CHARTS = []

def _note_charts():
    if "matplotlib.pyplot" not in sys.modules:
        return
    import matplotlib.pyplot as plt
    for number in plt.get_fignums():
        figure = plt.figure(number)
        for axes in figure.axes:
            if not axes.axison or axes.get_label() == "<colorbar>":
                continue
            CHARTS.append({
                "figure": number,
                "title": axes.get_title(),
                "xlabel": axes.get_xlabel(),
                "ylabel": axes.get_ylabel(),
                "figure_ylabels": [a.get_ylabel() for a in figure.axes if a.get_ylabel()],
                "xticks": [float(t) for t in axes.get_xticks()],
            })

get_ipython().events.register("post_execute", _note_charts)
"""
REPORT_CHARTS = "import json; print('CHARTS ' + json.dumps(CHARTS))"


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
    book.cells.insert(0, nbformat.v4.new_code_cell(WATCH_CHARTS))
    book.cells.append(nbformat.v4.new_code_cell(REPORT_CHARTS))
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
    nbformat.write(book, tmp_path / name)  # the executed copy, for a look when it fails
    assert images >= 3, f"{name} showed {images} pictures"
    report = "".join(output.get("text", "") for output in book.cells[-1].outputs)
    charts = json.loads(report.split("CHARTS ", 1)[1])
    for chart in charts:
        assert chart["title"] and chart["figure_ylabels"], f"{name}: a chart without labels {chart}"
        if "round" in chart["xlabel"]:
            assert all(tick == int(tick) for tick in chart["xticks"]), f"{name}: {chart}"


def test_the_notebooks_extra_installs_a_way_to_open_them():
    """``pip install -e '.[notebooks]'`` brings JupyterLab, and the README says the command;
    where it is installed, it starts."""
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    extra = project["project"]["optional-dependencies"]["notebooks"]
    assert any(req.startswith(("jupyterlab", "notebook")) for req in extra), extra
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "pip install -e '.[notebooks]'" in readme and "jupyter lab notebooks/" in readme
    if importlib.util.find_spec("jupyterlab") is None:
        pytest.skip("the notebooks extra is not installed here")
    result = subprocess.run(
        [sys.executable, "-m", "jupyterlab", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0 and result.stdout.strip()[0].isdigit(), result.stderr
