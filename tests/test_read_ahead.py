"""files.ReadAhead: once the pass is seen reading from the disk, the files it will read next are
asked for ahead of it (posix_fadvise), in its order and never more than AHEAD ahead; while
everything comes from the page cache nothing is asked for and no thread runs. A FIFO or a
missing path is passed over without waiting, and no thread is left when the pass ends, however
it ends (rule bundle forks its second pass after the first)."""

import itertools
import os
import threading

import pytest
from benchreport import files

pytestmark = pytest.mark.skipif(not hasattr(os, "posix_fadvise"), reason="no posix_fadvise here")


@pytest.fixture
def advised(monkeypatch):
    """The paths asked for, in order, each with how many the pass had read by then; the pass
    reads from the disk (storage_reads grows) unless the test says otherwise."""
    calls, state = [], {"read": 0, "reached": threading.Event()}
    real = os.posix_fadvise

    def record(handle, offset, length, advice):
        calls.append((os.readlink(f"/proc/self/fd/{handle}"), state["read"]))
        if len(calls) >= files.ReadAhead.AHEAD:
            state["reached"].set()
        return real(handle, offset, length, advice)

    monkeypatch.setattr(os, "posix_fadvise", record)
    monkeypatch.setattr(files.ReadAhead, "AHEAD", 2)
    monkeypatch.setattr(files.ReadAhead, "PROBE", 3)
    monkeypatch.setattr(files, "storage_reads", itertools.count(0, 4096).__next__)
    return calls, state


def paths_in(folder, count):
    paths = []
    for number in range(count):
        paths.append(folder / f"file-{number}.json")
        paths[-1].write_text("{}")
    return [str(path) for path in paths]


def test_from_the_first_disk_read_each_next_file_is_asked_for_in_order_at_most_ahead_early(tmp_path, advised):
    calls, state = advised
    paths = paths_in(tmp_path, 10)
    with files.ReadAhead(paths) as ahead:
        for _ in range(files.ReadAhead.PROBE):  # the probe: the third read finds the disk read
            state["read"] += 1
            ahead.advance()
        assert ahead.thread is not None
        assert state["reached"].wait(10)  # it asked for the next AHEAD before the pass read on
        for _ in paths[files.ReadAhead.PROBE :]:
            state["read"] += 1
            ahead.advance()
        ahead.thread.join(10)  # with a read for every path it asks for all of them
    assert [path for path, _ in calls] == paths[files.ReadAhead.PROBE :]
    assert all(
        position < read + files.ReadAhead.AHEAD for position, (_, read) in enumerate(calls, start=files.ReadAhead.PROBE)
    )
    assert threading.active_count() == 1


def test_with_everything_cached_nothing_is_asked_for(tmp_path, advised, monkeypatch):
    calls, _ = advised
    monkeypatch.setattr(files, "storage_reads", lambda: 4096)
    paths = paths_in(tmp_path, 20)
    with files.ReadAhead(paths) as ahead:
        for _ in paths:
            ahead.advance()
        assert ahead.thread is None
    assert calls == []


def test_a_fifo_a_missing_file_and_none_are_passed_over(tmp_path, advised):
    calls, _ = advised
    fifo, missing = tmp_path / "fifo", tmp_path / "missing.json"
    os.mkfifo(fifo)
    plain = paths_in(tmp_path, 4)
    paths = [*plain[:3], str(fifo), str(missing), None, plain[3]]

    def run():
        with files.ReadAhead(paths) as ahead:
            for _ in paths:
                ahead.advance()
            ahead.thread.join()

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    runner.join(10)
    assert not runner.is_alive(), "opening the FIFO waited for a writer"
    assert [path for path, _ in calls] == [plain[3]]


def test_no_thread_is_left_when_the_pass_stops_early(tmp_path, advised):
    paths = [str(tmp_path / f"file-{number}") for number in range(10_000)]
    with pytest.raises(RuntimeError):
        with files.ReadAhead(paths) as ahead:
            ahead.advance(files.ReadAhead.PROBE)
            assert ahead.thread is not None
            raise RuntimeError("the pass failed")
    assert threading.active_count() == 1 and not ahead.thread.is_alive()


def test_storage_reads_are_counted_where_the_system_says():
    first = files.storage_reads()
    if os.path.exists("/proc/self/io"):
        assert isinstance(first, int) and 0 <= first <= files.storage_reads()
