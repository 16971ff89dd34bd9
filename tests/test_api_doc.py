"""docs/api.md's generated tables match the code (``python scripts/api_doc.py`` rewrites
them), and the layout table covers every observation entry once."""

from __future__ import annotations

import runpy
from pathlib import Path

from sto_odno_env.views.observation import LAYOUT, OBS_SIZE

REPO = Path(__file__).resolve().parents[1]
API_DOC = runpy.run_path(str(REPO / "scripts" / "api_doc.py"), run_name="api_doc")


def test_generated_tables_match_the_code():
    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    assert API_DOC["render"](text) == text, (
        "docs/api.md differs from the code: run python scripts/api_doc.py"
    )


def test_the_layout_docstring_names_every_field():
    meanings = API_DOC["layout_meanings"]()
    assert list(meanings) == list(LAYOUT)
    assert all(meanings.values())


def test_the_layout_table_covers_the_observation():
    rows = [line for line in API_DOC["layout_table"]().splitlines() if line.startswith("| `")]
    covered = []
    for row in rows:
        start, stop = (int(x) for x in row.split("|")[2].strip().split(":"))
        covered += range(start, stop)
    assert covered == list(range(OBS_SIZE))
