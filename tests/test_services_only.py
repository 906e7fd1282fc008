"""CI's second step deselects only tests that reach neither a database nor Redis; its first
leaves out only the end-to-end tests that the second runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.services_only import (
    left_to_the_second_step,
    long_first,
    reaches_a_service,
    runs_again,
)


@dataclass
class Item:
    """What the judgement reads of a collected test."""

    path: Path
    markers: dict[str, pytest.Mark] = field(default_factory=dict)
    fixturenames: tuple[str, ...] = ()

    def get_closest_marker(self, name: str) -> pytest.Mark | None:
        return self.markers.get(name)


@pytest.fixture
def pure(tmp_path) -> Path:
    module = tmp_path / "test_pure.py"
    module.write_text("from daifugo import cards\n\ndef test_it(): ...\n")
    return module


def test_a_test_of_pure_code_is_deselected(pure):
    assert not reaches_a_service(Item(pure))


@pytest.mark.parametrize(
    "item",
    [
        {"markers": {"django_db": pytest.mark.django_db.mark}},
        {"markers": {"e2e": pytest.mark.e2e.mark}},
        {"markers": {"needs": pytest.mark.needs("redis").mark}},
        {"fixturenames": ("settings", "transactional_db")},
        {"fixturenames": ("live_server",)},
    ],
    ids=["django_db", "e2e", "needs-redis", "transactional_db", "live_server"],
)
def test_a_test_that_may_reach_a_database_is_kept(pure, item):
    assert reaches_a_service(Item(pure, **item))


@pytest.mark.parametrize("word", ["subprocess", "harness", "call_command", "channel_layer"])
def test_a_module_that_reaches_a_service_outside_the_markers_is_kept(tmp_path, word):
    module = tmp_path / f"test_{word}.py"
    module.write_text(f"import {word}\n\ndef test_it(): ...\n")
    assert reaches_a_service(Item(module))


def test_a_browser_test_runs_once_unless_it_needs_postgresql_or_redis(tmp_path):
    module = tmp_path / "test_page_browser.py"
    module.write_text("from tests.pages.browser import require_chromium\n\ndef test_it(): ...\n")
    e2e = {"e2e": pytest.mark.e2e.mark}
    assert reaches_a_service(Item(module, e2e)) and not runs_again(Item(module, e2e))
    with_redis = {**e2e, "needs": pytest.mark.needs("redis").mark}
    assert runs_again(Item(module, with_redis))


def test_a_test_of_the_database_runs_again(pure):
    assert runs_again(Item(pure, {"django_db": pytest.mark.django_db.mark}))


def test_an_end_to_end_test_runs_in_the_second_step_alone_unless_it_is_the_embedded_default(pure):
    e2e = {"e2e": pytest.mark.e2e.mark}
    assert runs_again(Item(pure, e2e)) and left_to_the_second_step(Item(pure, e2e))
    embedded = {**e2e, "embedded_default": pytest.mark.embedded_default.mark}
    assert runs_again(Item(pure, embedded)) and not left_to_the_second_step(Item(pure, embedded))
    database = {"django_db": pytest.mark.django_db.mark}
    assert not left_to_the_second_step(Item(pure, database))  # not end to end: both steps


def test_the_long_modules_are_handed_out_first(pure, tmp_path):
    browser = tmp_path / "test_page_browser.py"
    browser.write_text("from tests.pages.browser import require_chromium\n\ndef test_it(): ...\n")
    e2e = Item(pure, {"e2e": pytest.mark.e2e.mark})
    items = [Item(pure), e2e, Item(browser), Item(pure)]
    assert sorted(items, key=long_first) == [e2e, items[2], items[0], items[3]]
