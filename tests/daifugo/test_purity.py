"""The game package is pure Python: it imports nothing but the standard library and itself
(the record schema's validator, jsonschema too)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "daifugo"
FORBIDDEN = {"django", "rest_framework", "channels", "daphne", "asgiref", "drf_spectacular"}


def engine_files() -> list[Path]:
    files = sorted(ENGINE.glob("*.py"))
    assert files and (ENGINE / "__init__.py") in files
    return files


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every absolute import; relative imports are the engine."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name | ast.Attribute)
            and (getattr(node.func, "id", None) or getattr(node.func, "attr", None))
            in ("__import__", "import_module")
        ):
            out.append((node.lineno, "<dynamic import>"))
    return out


def test_the_engine_imports_no_django_drf_or_channels() -> None:
    bad = [
        f"{path.name}:{line} imports {mod}"
        for path in engine_files()
        for line, mod in imported_modules(path)
        if mod.split(".")[0] in FORBIDDEN
    ]
    assert bad == []


#: The one module that reads a document format with a library: the record schema's validator.
ALSO_ALLOWED = {"record_schema.py": {"jsonschema"}}


def test_the_engine_imports_only_the_standard_library_and_itself() -> None:
    allowed = set(sys.stdlib_module_names) | {"__future__"}
    bad = []
    for path in engine_files():
        for line, mod in imported_modules(path):
            top = mod.split(".")[0]
            if top in ALSO_ALLOWED.get(path.name, ()):
                continue
            if mod == "daifugo" or mod.startswith("daifugo."):
                continue
            if top not in allowed:
                bad.append(f"{path.name}:{line} imports {mod}")
    assert bad == []


def test_importing_the_engine_loads_no_django() -> None:
    every_module = ", ".join(
        ["daifugo", *(f"daifugo.{p.stem}" for p in sorted(ENGINE.glob("[!_]*.py")))]
    )
    code = (
        "import sys\n"
        f"import {every_module}\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        f"{sorted(FORBIDDEN)!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ENGINE.parent,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ENGINE.parents[1])},
    )
    assert out.stdout.strip() == ""
