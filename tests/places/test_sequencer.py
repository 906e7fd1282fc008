"""The order keeper of several processes' events (``places/sequencer.py``)."""

from __future__ import annotations

import asyncio

import pytest

from places.realtime import sequencer
from places.realtime.sequencer import Sequencer

GROUP, ALL = "place.7", "places"


def event(seq: int, group: str = GROUP, place: int = 7) -> dict:
    return {"type": "place.event", "group": group, "place": place, "seq": seq, "text": f"e{seq}"}


class Harness:
    def __init__(self, log_until: int = 100, marks: dict | None = None):
        self.out: list[tuple[str, int, int]] = []
        self.log_reads: list[tuple[int, int, int]] = []
        self.log_until = log_until
        self.marks = marks if marks is not None else {7: 0}
        self.seq = Sequencer(self.hand_out, self.read_log, self.read_marks)

    async def hand_out(self, message):
        self.out.append((message["group"], message["place"], message["seq"]))

    async def read_log(self, place_id, first, last):
        self.log_reads.append((place_id, first, last))
        return [(s, f"e{s}") for s in range(first, min(last, self.log_until + 1))]

    async def read_marks(self, place_id):
        return dict(self.marks) if place_id is None else {place_id: self.marks.get(place_id, 0)}

    def seqs(self, group: str = GROUP) -> list[int]:
        return [s for g, _, s in self.out if g == group]


@pytest.fixture(autouse=True)
def short_grace(monkeypatch):
    monkeypatch.setattr(sequencer, "GRACE_SECONDS", 0.01)


async def test_events_in_order_pass_at_once():
    h = Harness()
    await h.seq.start(GROUP, 7)
    for s in (1, 2, 3):
        await h.seq.receive(event(s))
    assert h.seqs() == [1, 2, 3]


async def test_an_event_ahead_waits_for_the_one_before_it():
    h = Harness()
    await h.seq.start(GROUP, 7)
    await h.seq.receive(event(1))
    await h.seq.receive(event(3))  # committed here; 2 is still on its way from elsewhere
    await h.seq.receive(event(4))
    assert h.seqs() == [1]
    await h.seq.receive(event(2))
    assert h.seqs() == [1, 2, 3, 4]
    await asyncio.sleep(0.05)
    assert h.log_reads == []  # the gap filled in time: the log was not read


async def test_a_gap_that_lasts_is_filled_from_the_log():
    h = Harness()
    await h.seq.start(GROUP, 7)
    await h.seq.receive(event(1))
    await h.seq.receive(event(5))
    await asyncio.sleep(0.05)
    assert h.seqs() == [1, 2, 3, 4, 5]
    assert h.log_reads == [(7, 2, 5)]
    await h.seq.receive(event(3))  # arrives late after all: already handed out
    await h.seq.receive(event(6))
    assert h.seqs() == [1, 2, 3, 4, 5, 6]


async def test_a_gap_the_log_cannot_fill_does_not_stop_the_stream():
    h = Harness(log_until=2)
    await h.seq.start(GROUP, 7)
    await h.seq.receive(event(1))
    await h.seq.receive(event(5))
    await asyncio.sleep(0.05)
    assert h.seqs() == [1, 2, 5]


async def test_duplicates_and_events_from_before_listening_are_dropped():
    h = Harness(marks={7: 10})
    await h.seq.start(GROUP, 7)
    await h.seq.receive(event(9))
    await h.seq.receive(event(11))
    await h.seq.receive(event(11))
    assert h.seqs() == [11]


async def test_a_group_nobody_here_listens_to_is_not_numbered():
    h = Harness()
    await h.seq.receive(event(5))
    await h.seq.receive(event(2))
    assert h.seqs() == [5, 2]


async def test_every_place_stream_numbers_each_place_and_new_places_from_one():
    h = Harness(marks={7: 4})  # place 7 runs; place 8 starts later
    await h.seq.start(ALL, None)
    await h.seq.receive(event(5, ALL, 7))
    await h.seq.receive(event(2, ALL, 8))  # 1 (start_place) is late
    await h.seq.receive(event(1, ALL, 8))
    await h.seq.receive(event(6, ALL, 7))
    assert h.out == [(ALL, 7, 5), (ALL, 8, 1), (ALL, 8, 2), (ALL, 7, 6)]


async def test_catching_up_hands_out_the_tail_nothing_revealed():
    """The layer was down while another process sent a place's last events: no later
    event shows the gap, so after rejoining the log is read up to its last number."""
    h = Harness(log_until=5)
    await h.seq.start(GROUP, 7)
    await h.seq.receive(event(1))
    await h.seq.receive(event(2))
    h.marks = {7: 5}
    await h.seq.catch_up()
    assert h.seqs() == [1, 2, 3, 4, 5]
    await h.seq.receive(event(5))  # the same event, relayed late: not twice
    await h.seq.catch_up()  # nothing new: no read
    assert h.seqs() == [1, 2, 3, 4, 5]
    assert h.log_reads == [(7, 3, 6)]
