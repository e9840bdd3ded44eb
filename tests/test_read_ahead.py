"""files.ReadAhead: the files a pass will read asked for ahead of it (posix_fadvise), never more
than AHEAD ahead, a FIFO or a missing path passed over without waiting, and no thread left when
the pass ends, however it ends (rule bundle forks its second pass after the first)."""

import os
import threading

import pytest
from benchreport import files

pytestmark = pytest.mark.skipif(not hasattr(os, "posix_fadvise"), reason="no posix_fadvise here")


@pytest.fixture
def advised(monkeypatch):
    """The paths asked for, in order, each with how many the pass had read by then."""
    calls, state = [], {"read": 0, "reached": threading.Event()}
    real = os.posix_fadvise

    def record(handle, offset, length, advice):
        calls.append((os.readlink(f"/proc/self/fd/{handle}"), state["read"]))
        if len(calls) >= files.ReadAhead.AHEAD:
            state["reached"].set()
        return real(handle, offset, length, advice)

    monkeypatch.setattr(os, "posix_fadvise", record)
    monkeypatch.setattr(files.ReadAhead, "AHEAD", 2)
    return calls, state


def test_each_file_is_asked_for_in_order_and_at_most_ahead_files_early(tmp_path, advised):
    calls, state = advised
    paths = []
    for number in range(8):
        paths.append(tmp_path / f"file-{number}.json")
        paths[-1].write_text("{}")
    with files.ReadAhead(str(path) for path in paths) as ahead:
        assert state["reached"].wait(10)  # the thread asked for the first AHEAD before any read
        for _ in paths:
            state["read"] += 1
            ahead.advance()
        ahead.thread.join(10)  # with a read for every path it asks for all of them
    assert [path for path, _ in calls] == [str(path) for path in paths]
    assert all(position < read + files.ReadAhead.AHEAD for position, (_, read) in enumerate(calls))
    assert threading.active_count() == 1


def test_a_fifo_a_missing_file_and_none_are_passed_over(tmp_path, advised):
    calls, _ = advised
    fifo, missing, plain = tmp_path / "fifo", tmp_path / "missing.json", tmp_path / "plain.json"
    os.mkfifo(fifo)
    plain.write_text("{}")
    paths = [str(fifo), str(missing), None, str(plain)]

    def run():
        with files.ReadAhead(paths) as ahead:
            for _ in paths:
                ahead.advance()
            ahead.thread.join()

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    runner.join(10)
    assert not runner.is_alive(), "opening the FIFO waited for a writer"
    assert str(plain) in [path for path, _ in calls] and str(missing) not in [path for path, _ in calls]


def test_no_thread_is_left_when_the_pass_stops_early(tmp_path):
    paths = [str(tmp_path / f"file-{number}") for number in range(10_000)]
    with pytest.raises(RuntimeError):
        with files.ReadAhead(paths):
            raise RuntimeError("the pass failed at its first file")
    assert threading.active_count() == 1
    with files.ReadAhead(paths) as ahead:
        ahead.advance()
    assert threading.active_count() == 1 and not ahead.thread.is_alive()
