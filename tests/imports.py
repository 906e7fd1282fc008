"""The project's own modules and what each imports, read from the source (``ast``): every
import at any depth, inside functions too. Shared by the import-circle and layer tests."""

from __future__ import annotations

import ast
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


def imports(name: str, path: Path, known: dict[str, Path]) -> dict[str, int]:
    """The project's modules ``name`` imports (a package's own submodules aside), each with
    the line of its first import."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                out[target] = min(out.get(target, node.lineno), node.lineno)
    return out


def graph() -> dict[str, dict[str, int]]:
    """Every module of the project and the modules it imports, with their lines."""
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}
