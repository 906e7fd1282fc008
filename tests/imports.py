"""The project's own modules and what each imports, read from the source (``ast``): every
import at any depth, inside functions too. Shared by the import-circle and layer tests."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = {".venv", "tests", "migrations", "bench", ".git", "node_modules", "staticfiles"}


def modules() -> dict[str, Path]:
    """Each module of the project by its dotted name (a package by its ``__init__``)."""
    found = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        if SKIPPED & set(rel.parts):
            continue
        name = ".".join(rel.with_suffix("").parts).removesuffix(".__init__")
        found[name] = path
    return found


def imported_names(name: str, path: Path) -> Iterator[tuple[str, int]]:
    """Every dotted name module ``name`` imports (relative ones made absolute), with its line."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from ((a.name, node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            yield from ((f"{base}.{a.name}", node.lineno) for a in node.names)
            yield base, node.lineno


def imports(name: str, path: Path, known: dict[str, Path]) -> dict[str, int]:
    """The project's modules ``name`` imports (a package's own submodules aside), each with
    the line of its first import."""
    out: dict[str, int] = {}
    for target, line in imported_names(name, path):
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name and not name.startswith(target + "."):
            out[target] = min(out.get(target, line), line)
    return out


def graph() -> dict[str, dict[str, int]]:
    """Every module of the project and the modules it imports, with their lines."""
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}
