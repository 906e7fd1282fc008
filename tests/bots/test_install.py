"""The bots' distribution installs with pip and works from anywhere (issue 27, bot author 1).

The repository is built as pip builds it (``pip wheel`` of a copy of the clone, the
``[project]`` of pyproject.toml) and installed into a fresh virtual environment made
from the base Python, which has nothing of the project on its path. Then docs/bots.md's
commands run from a scratch directory outside the repository, without PYTHONPATH, with
the bot author's ``mybot.py`` (the one in docs/bots.md) in that directory.

Offline by design (CI must not depend on PyPI): the build uses this environment's
setuptools and wheel (``--no-build-isolation``), and the distribution's one dependency,
aiohttp, with its own dependencies, is copied from this environment's installed files
into the new one (jsonschema's too), as pip would have installed it; ``pip check`` then confirms that
what the distribution declares is all there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "bots.md").read_text()
#: What a clone holds that a build does not read.
NOT_COPIED = shutil.ignore_patterns(
    ".venv", ".git", "__pycache__", "artifacts", "*.sqlite3*", ".pytest_cache", ".ruff_cache",
    ".hypothesis", "staticfiles", "build", "*.egg-info",
)  # fmt: skip


def run(*args: str | Path, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def dependency_closure(name: str) -> list[metadata.Distribution]:
    """The installed distributions ``name`` needs, itself first (extras left out)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = [name]
    while todo:
        dist = metadata.distribution(todo.pop())
        key = dist.metadata["Name"].lower()
        if key in seen:
            continue
        seen[key] = dist
        for text in dist.requires or []:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return list(seen.values())


def copy_installed(dist: metadata.Distribution, site: Path) -> None:
    for file in dist.files or []:
        source = Path(dist.locate_file(file))
        if source.is_file() and ".." not in file.parts:
            target = site / file
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel ``pip install .`` builds from a copy of the clone."""
    base = tmp_path_factory.mktemp("wheel")
    clone = base / "clone"
    shutil.copytree(ROOT, clone, ignore=NOT_COPIED, symlinks=True)
    run(sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q",
        "-w", base / "dist", clone, cwd=base)  # fmt: skip
    (built,) = (base / "dist").glob("daihinmin_bots-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(tmp_path_factory, wheel) -> Path:
    """A fresh virtual environment with the repository pip-installed: its bin directory."""
    base = tmp_path_factory.mktemp("install")
    env = base / "venv"
    venv.create(env, with_pip=True)  # ensurepip: pip from the standard library, offline
    bin_dir = env / "bin"
    site = Path(
        run(
            bin_dir / "python",
            "-c",
            "import sysconfig; print(sysconfig.get_path('purelib'))",
            cwd=base,
        ).stdout.strip()  # fmt: skip
    )
    for dist in dependency_closure("aiohttp") + dependency_closure("jsonschema"):
        copy_installed(dist, site)
    run(
        bin_dir / "python", "-m", "pip", "install", "--no-index", "--no-deps", "-q", wheel, cwd=base
    )
    run(bin_dir / "python", "-m", "pip", "check", cwd=base)  # aiohttp and its needs, all there
    return bin_dir


@pytest.fixture
def scratch(tmp_path) -> Path:
    """A directory outside the repository holding the bot author's mybot.py from the docs."""
    code = re.search(r"```python\n(# mybot\.py\n.*?)```", DOCS, re.S).group(1)
    (tmp_path / "mybot.py").write_text(code)
    assert ROOT not in tmp_path.parents
    return tmp_path


def docs_command(prefix: str) -> list[str]:
    """A command of docs/bots.md that starts with ``prefix``, as words (continued lines joined)."""
    for block in re.findall(r"```sh\n(.*?)```", DOCS, re.S):
        text = block.replace("\\\n", " ")
        for line in text.splitlines():
            if line.startswith(prefix):
                return line.split()
    raise AssertionError(f"docs/bots.md has no command starting {prefix!r}")


#: The wheel's top-level folders: the client, the game package, the record schemas.
WHEEL_PACKAGES = {"bots", "daifugo", "daihinmin_schemas"}
#: The server's top-level packages, of which the wheel holds not one module.
SERVER_PACKAGES = {"places", "api", "daihinmin", "deploy", "harness"}


def test_the_wheel_lists_the_client_the_game_package_and_nothing_of_the_server(wheel):
    with zipfile.ZipFile(wheel) as archive:
        files = sorted(archive.namelist())
    tops = {name.split("/")[0] for name in files if not name.split("/")[0].endswith(".dist-info")}
    print(f"{wheel.name}: {len(files)} files", *files, sep="\n")  # the note's file list (-s)
    assert tops == WHEEL_PACKAGES
    assert not tops & SERVER_PACKAGES
    assert {"daifugo/uecda.py", "daifugo/uecda_wire.py", "bots/arena.py", "bots/verify.py"} <= set(
        files
    )


def test_the_package_holds_the_client_and_the_engine_and_nothing_of_the_server(installed, scratch):
    where = run(installed / "python", "-c",
                "import bots, bots.client, bots.uecda, daifugo; "
                "print(bots.__file__, daifugo.__file__)",
                cwd=scratch).stdout  # fmt: skip
    assert str(installed.parent) in where and str(ROOT) not in where
    for module in ("places", "places.models", "places.uecda", "api", "daihinmin"):
        server = run(installed / "python", "-c", f"import {module}", cwd=scratch, check=False)
        assert f"No module named '{module.split('.')[0]}'" in server.stderr


def test_the_arena_command_of_the_docs_runs_mybot_from_a_scratch_directory(installed, scratch):
    words = docs_command("python -m bots.arena")
    words[words.index("--games") + 1] = "100"  # the docs' 1,000 games: the same, longer
    for command in (
        [installed / "python", *words[1:]],
        [installed / "daihinmin-arena", *words[3:]],
    ):
        out = run(*command, cwd=scratch).stdout
        assert "100 games in 2 places" in out and " mybot:play " in out, out
        assert "95% interval" in out


def test_the_wire_command_and_its_help_run_from_a_scratch_directory(installed, scratch):
    for command in ([installed / "python", "-m", "bots"], [installed / "daihinmin-bot"]):
        out = run(*command, "--help", cwd=scratch).stdout
        assert "--strategy" in out and "--transport" in out
    # mybot is imported from the scratch directory by the installed command: it is the
    # function that is missing, not the module
    refused = run(installed / "daihinmin-bot", "--place", "1", "--name", "alice", "--password",
                  "pw", "--strategy", "mybot:nosuch", cwd=scratch, check=False)  # fmt: skip
    assert refused.returncode == 2
    assert "mybot has no function 'nosuch'" in refused.stderr, refused.stderr


def test_the_practice_commands_of_the_docs_play_a_place_from_a_scratch_directory(
    installed, scratch, tmp_path_factory
):
    """docs/bots.md's practice: one request makes the place, the installed bot plays it."""
    import httpx

    from harness.server import Server

    server = Server(tmp_path_factory.mktemp("server"))
    server.start()
    try:
        # the docs' first step: alice signs herself up, no admin needed
        account = {"name": "alice", "password": "correct-horse-9"}
        signed_up = httpx.post(f"{server.url}/signup.json", data=account, timeout=30)
        assert signed_up.status_code == 201, signed_up.text
        practice = httpx.post(f"{server.url}/practice.json", timeout=30, data={
            **account, "bots": "greedy,shedder,random,greedy",
            "games": "2", "seed": "try-1", "time_limit": "30",
        }).json()  # fmt: skip
        words = docs_command("python -m bots --server http://127.0.0.1:8000 --place 7")
        words[words.index("--server") + 1] = server.url
        words[words.index("--place") + 1] = str(practice["place"])
        words[words.index("--strategy") + 1] = "mybot:play"  # the author's, from the scratch dir
        out = run(installed / "python", *words[1:], cwd=scratch).stdout
    finally:
        server.stop()
    assert out.startswith("alice: ") and "2 games (" in out and " points" in out, out


def test_daihinmin_verify_checks_records_without_the_server(installed, scratch):
    """A bot author checks a downloaded records.jsonl with the client alone: both format
    versions' schemas come with it (docs/*.schema.json as package data)."""
    from tests.daifugo.recorded import play_place
    from tests.places.test_uecda_import import FIXTURE

    records = play_place("verify", 3)
    path = scratch / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = run(installed / "daihinmin-verify", path, cwd=scratch).stdout
    assert out.splitlines()[0].startswith("ok: game 1, ranks ") and len(out.splitlines()) == 3
    records[1]["actions"][0]["cards"] = ["joker", "joker"]  # a game the engine plays otherwise
    records[2]["version"] = "two"  # no record of any format
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    failed = run(installed / "daihinmin-verify", path, cwd=scratch, check=False)
    assert failed.returncode == 1 and "2 of 3 records fail" in failed.stderr, failed.stderr
    assert "line 3 (game 3): not a record of format version 1" in failed.stderr
    assert failed.stdout.startswith("ok: game 1")
    v2 = scratch / "uecda.jsonl"  # a version 2 record (the uecda rules) too
    v2.write_text(uecda_records(FIXTURE, 2), encoding="utf-8")
    assert run(installed / "daihinmin-verify", v2, cwd=scratch).stdout.count("ok: game") == 2


def uecda_records(log: Path, games: int) -> str:
    """The first games of a tndhms log as version 2 records (the engine's, no database)."""
    from daifugo.uecda_log import parse_log, referee
    from daifugo.uecda_record import record_of_logged

    parsed = parse_log(log.read_text(encoding="ascii").splitlines(keepends=True))
    head = {"id": None, "title": "tndhms fixture", "games": len(parsed.games)}
    done = list(referee(parsed))[:games]
    return "".join(json.dumps(record_of_logged(parsed, d, head)) + "\n" for d in done)
