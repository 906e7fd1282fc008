"""Every link in the README and docs/ resolves inside the repository.

A reader following the README must never land on a file that is not in the clone, nor
on an anchor that no heading makes. Links to other sites are not followed (no network
here); they are only required to be https.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def markdown_files() -> list[Path]:
    """The Markdown files git tracks (a clean clone's), README and docs/ among them."""
    listed = subprocess.run(
        ["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / name for name in listed]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*", "", heading).strip().lower()  # GitHub keeps "_" (`a_b`: a_b)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(text):
        base = slug(heading)
        count = seen.get(base, 0)
        found.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return found


def links(path: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", path.read_text(encoding="utf-8")))


def test_the_readme_and_docs_are_checked() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in markdown_files()}
    assert {"README.md", "docs/protocol.md", "docs/rules.md"} <= names


@pytest.mark.parametrize(
    "path", markdown_files(), ids=lambda path: path.relative_to(ROOT).as_posix()
)
def test_every_link_resolves_inside_the_repository(path: Path) -> None:
    broken = []
    for target in links(path):
        if re.match(r"[a-z]+:", target):
            if not target.startswith(("https://", "mailto:")):
                broken.append(f"{target}: not https")
            continue
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        if ROOT not in resolved.parents and resolved != ROOT:
            broken.append(f"{target}: outside the repository")
        elif not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading makes #{anchor}")
    assert not broken, f"{path.relative_to(ROOT)}: " + "; ".join(broken)


def test_a_broken_link_and_a_broken_anchor_are_caught(tmp_path: Path) -> None:
    """The checker itself: it must see what it is there to see."""
    page = tmp_path / "page.md"
    page.write_text(
        "# A title, with `code_name`\n\n[ok](#a-title-with-code_name) [bad](#nowhere)\n"
    )
    assert "a-title-with-code_name" in anchors(page)
    assert "nowhere" not in anchors(page)
    assert links(page) == ["#a-title-with-code_name", "#nowhere"]
