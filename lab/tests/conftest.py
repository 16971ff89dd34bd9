"""The lab's tests share the suite's helpers (``tests.helpers``): the repository's root is
importable (an editable install puts it on the path; this makes sure of it)."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
