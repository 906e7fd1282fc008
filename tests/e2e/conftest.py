from __future__ import annotations

import pytest

from harness.server import Server


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path)
    s.start()
    yield s
    s.stop()
