"""No import circle between the project's own modules (imports at any depth, inside
functions too). That each layer imports only the layers below it is ``tests/test_layers.py``'s."""

from __future__ import annotations

from tests.imports import graph as import_graph


def cycle_from(start: str, graph: dict[str, dict[str, int]]) -> list[str] | None:
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
    graph = import_graph()
    assert "places.services" in graph and "places.dealer" in graph  # the graph is read
    cycles = [c for name in graph if (c := cycle_from(name, graph))]
    assert not cycles, "import circles: " + "; ".join(" -> ".join(c) for c in cycles)
