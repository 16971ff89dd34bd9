"""The package face's names, as type checkers see them (mypy runs in scripts/test.sh).

``sto_odno_env/__init__.py`` imports its public names on first use (PEP 562); an
``if TYPE_CHECKING:`` block imports the same names from the same modules, so that a type
checker knows ``sto_odno_env.Rules`` is the class. The two lists must agree.
"""

from __future__ import annotations

import ast
from pathlib import Path

import sto_odno_env

FACE = Path(sto_odno_env.__file__)


def _type_checking_imports() -> dict[str, str]:
    """name -> module of each import in the face's ``if TYPE_CHECKING:`` block."""
    tree = ast.parse(FACE.read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom), ast.unparse(statement)
                base = "sto_odno_env." + (statement.module or "").lstrip(".")
                for alias in statement.names:
                    name = alias.asname or alias.name
                    assert name == alias.name, f"{name} must keep its own name"
                    found[name] = base.rstrip(".")
    return found


def test_type_checking_block_names_every_export_from_its_module():
    imports = _type_checking_imports()
    assert set(imports) == {*sto_odno_env._EXPORTS, *sto_odno_env._MODULES}
    for name, module in sto_odno_env._EXPORTS.items():
        assert imports[name] == module, name
    for name, module in sto_odno_env._MODULES.items():
        assert f"{imports[name]}.{name}" == module, name
