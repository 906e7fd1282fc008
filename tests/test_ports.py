"""One setting moves the server's three ports (``daihinmin/ports.py``): ``PORT``, the
site's, and the 2011 WebSocket's and the UECda port each as far from it as its default
is from 8000, unless set."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from daihinmin.ports import PortError, Ports, ports

ROOT = Path(__file__).resolve().parent.parent


def test_the_defaults_are_unchanged_when_port_is_not_given():
    assert ports({}) == Ports(8000, 8081, 42485)
    assert ports({"PORT": "8000"}) == Ports(8000, 8081, 42485)
    assert ports({"PORT": ""}) == Ports(8000, 8081, 42485)


def test_port_moves_both_side_ports_by_as_much():
    assert ports({"PORT": "28000"}) == Ports(28000, 28081, 62485)
    assert ports({}, site=28000) == Ports(28000, 28081, 62485)  # demo --port
    assert ports({"PORT": "9000"}, site=28000).site == 28000  # --port wins


def test_a_side_port_given_wins_and_0_is_none():
    environ = {"PORT": "28000", "LEGACY_WS_PORT": "9081", "UECDA_PORT": "0"}
    assert ports(environ) == Ports(28000, 9081, 0)
    assert ports({"UECDA_PORT": ""}).uecda == 0  # empty: none, as it always was
    assert ports({"LEGACY_WS_PORT": ""}).legacy_ws == 8081  # empty: not given, as before


def test_a_port_moved_beyond_65535_names_the_setting_to_give():
    with pytest.raises(PortError, match="PORT=40000 puts UECDA_PORT at 74485, beyond 65535"):
        ports({"PORT": "40000"})
    assert ports({"PORT": "40000", "UECDA_PORT": "42485"}) == Ports(40000, 40081, 42485)


@pytest.mark.parametrize("name", ["PORT", "LEGACY_WS_PORT", "UECDA_PORT"])
@pytest.mark.parametrize("value", ["²", "70000", "-1", "eighty"])
def test_a_port_setting_that_is_no_port_is_refused_by_name(name, value):
    with pytest.raises(PortError, match=f"^{name}="):
        ports({name: value})


def settings_ports(**environ: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PORT", "LEGACY_WS_PORT", "UECDA_PORT")}
    return subprocess.run(
        [sys.executable, "-c", "from django.conf import settings; "
         "print(settings.LEGACY_WS_PORT, settings.UECDA_PORT)"],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "daihinmin.settings", "DEBUG": "1", **environ},
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip


def test_the_settings_follow_port_and_say_what_to_set_beyond_65535():
    assert settings_ports(PORT="28000").stdout.split() == ["28081", "62485"]
    assert settings_ports().stdout.split() == ["8081", "42485"]
    beyond = settings_ports(PORT="40000")
    assert beyond.returncode != 0 and "set UECDA_PORT (0: none)" in beyond.stderr


def test_make_passes_port_to_the_server_and_its_help_says_where_each_port_is():
    makefile = (ROOT / "Makefile").read_text()
    assert "PORT=$(PORT) $(PY) manage.py demo --host $(HOST) --port $(PORT)" in makefile
    assert "PORT=$(PORT) $(PY) -m daihinmin.serve -b $(HOST) -p $(PORT)" in makefile
    done = subprocess.run(
        ["make", "-s", "help", "PORT=28000"], cwd=ROOT, capture_output=True, text=True
    )
    assert "127.0.0.1:28081" in done.stdout and "127.0.0.1:62485" in done.stdout


def test_the_readme_shows_the_banner_make_run_prints():
    """With every port's line: the UECda one was missing."""
    from places.management.commands.demo import banner

    text = banner(1, 50, 0.6, "127.0.0.1", ports({}))
    assert "  UECda:   127.0.0.1:42485  (UECda clients" in text
    assert f"```\n{text}```" in (ROOT / "README.md").read_text()
    moved = banner(1, 50, 0.6, "127.0.0.1", ports({"PORT": "28000"}))
    assert "http://127.0.0.1:28000/" in moved and ":28081/" in moved and ":62485 " in moved
