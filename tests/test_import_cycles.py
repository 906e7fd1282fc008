"""No import circle between the project's own modules (imports at any depth, inside
functions too): each layer imports only the layers below it (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = {".venv", "tests", "migrations", "bench", ".git", "node_modules", "staticfiles"}


def modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        if SKIPPED & set(rel.parts):
            continue
        name = ".".join(rel.with_suffix("").parts).removesuffix(".__init__")
        found[name] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project's modules ``name`` imports (a package's own submodules aside)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
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
                out.add(target)
    return out


def cycle_from(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    stack = [(start, [start])]
    seen = set()
    while stack:
        node, path = stack.pop()
        for nxt in graph[node]:
            if nxt == start:
                return [*path, start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return None


def test_no_module_of_the_project_imports_itself_through_others():
    known = modules()
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert "places.services" in graph and "places.dealer" in graph  # the graph is read
    cycles = [c for name in graph if (c := cycle_from(name, graph))]
    assert not cycles, "import circles: " + "; ".join(" -> ".join(c) for c in cycles)
