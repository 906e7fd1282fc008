"""Every answer carries the Content-Security-Policy (daihinmin/csp.py), and no template holds
what it would refuse: an inline script or an event-handler attribute."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/cards", "/livez", "/ratings.json", "/static/js/replay.js"])
def test_every_answer_carries_the_policy(client, path):
    response = client.get(path)
    assert response["Content-Security-Policy"] == settings.CONTENT_SECURITY_POLICY
    assert "script-src 'self';" in settings.CONTENT_SECURITY_POLICY


def test_no_template_holds_an_inline_script_or_a_handler_attribute():
    found = []
    for template in sorted((ROOT / "templates").rglob("*.html")):
        text = template.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            if "src=" not in tag:
                found.append((template.name, tag))
        found += [(template.name, a) for a in re.findall(r"\son[a-z]+\s*=", text)]
    assert found == []


def test_no_page_script_writes_handlers_or_inline_scripts():
    for script in sorted((ROOT / "static" / "js").glob("*.js")):
        text = script.read_text()
        assert not re.search(r"\son[a-z]+=[\"'`$]", text), script.name
        assert "eval(" not in text and "new Function" not in text, script.name
