"""files.ReadAhead: once the pass is seen reading from the disk, the files it will read next are
asked for (posix_fadvise) in its order, never more than AHEAD ahead of it and never one it has
read; while everything comes from the page cache nothing is asked for. A FIFO, a missing path
or None is passed over without waiting."""

import itertools
import os
import shutil
import threading

import pytest
from benchreport.read import discover, files, ingest
from conftest import EXAMPLE

pytestmark = pytest.mark.skipif(not hasattr(os, "posix_fadvise"), reason="no posix_fadvise here")


@pytest.fixture
def advised(monkeypatch):
    """The paths asked for, in order, each with how many the pass had read by then; the pass
    reads from the disk (storage_reads grows) unless the test says otherwise."""
    calls, state = [], {"read": 0}
    real = os.posix_fadvise

    def record(handle, offset, length, advice):
        calls.append((os.readlink(f"/proc/self/fd/{handle}"), state["read"]))
        return real(handle, offset, length, advice)

    monkeypatch.setattr(os, "posix_fadvise", record)
    monkeypatch.setattr(files.ReadAhead, "AHEAD", 4)
    monkeypatch.setattr(files.ReadAhead, "PROBE", 3)
    monkeypatch.setattr(files, "storage_reads", itertools.count(0, 4096).__next__)
    return calls, state


def paths_in(folder, count):
    paths = []
    for number in range(count):
        paths.append(folder / f"file-{number}.json")
        paths[-1].write_text("{}")
    return [str(path) for path in paths]


@pytest.mark.parametrize("step", [1, 3])  # ingest reads an attempt's paths at once
def test_from_the_first_disk_read_the_next_files_are_asked_for_in_order_at_most_ahead_early(tmp_path, advised, step):
    calls, state = advised
    paths = paths_in(tmp_path, 21)
    ahead = files.ReadAhead(paths)
    for number in range(step, len(paths) + 1, step):
        state["read"] = number
        ahead.advance(step)
        if number == files.ReadAhead.PROBE:  # the probe found the disk read: the next AHEAD at once
            assert [path for path, _ in calls] == paths[number : number + files.ReadAhead.AHEAD]
    assert [path for path, _ in calls] == paths[files.ReadAhead.PROBE :]
    assert all(
        read <= position < read + files.ReadAhead.AHEAD
        for position, (_, read) in enumerate(calls, start=files.ReadAhead.PROBE)
    )


def test_with_everything_cached_nothing_is_asked_for(tmp_path, advised, monkeypatch):
    calls, _ = advised
    monkeypatch.setattr(files, "storage_reads", lambda: 4096)
    paths = paths_in(tmp_path, 20)
    ahead = files.ReadAhead(paths)
    for _ in paths:
        ahead.advance()
    assert calls == [] and not ahead.asking


def test_asking_stops_while_nothing_comes_from_the_disk_and_starts_again_when_it_does(tmp_path, advised, monkeypatch):
    """The disk is read until the pass has read 8 paths, then not until 24: the asking starts at
    the first probe, stops at the first probe while asking that finds nothing read (AHEAD paths
    on), and starts again at the first probe after 24; no path is asked for twice or after its
    read."""
    calls, state = advised
    monkeypatch.setattr(
        files, "storage_reads", lambda: 4096 * min(state["read"], 8) + 4096 * max(state["read"] - 24, 0)
    )
    paths = paths_in(tmp_path, 40)
    ahead = files.ReadAhead(paths)
    for number in range(1, len(paths) + 1):
        state["read"] = number
        ahead.advance()
    asked = [paths.index(path) for path, _ in calls]
    assert asked == sorted(set(asked)) and all(read <= position for position, (_, read) in zip(asked, calls))
    # AHEAD 4, PROBE 3 (the fixture): asking from the probe at 3, then a probe every AHEAD paths:
    # the one at 15 finds nothing read since 11 and stops it; the probes every PROBE paths at 18,
    # 21, 24 find nothing; the one at 27 finds the disk read again
    assert asked[0] == 3 and max(position for position in asked if position < 24) <= 16, asked
    assert 27 in asked and set(range(27, 40)) <= set(asked), asked


def test_a_fifo_a_missing_file_a_link_and_none_are_passed_over(tmp_path, advised):
    calls, _ = advised
    fifo, missing, link = tmp_path / "fifo", tmp_path / "missing.json", tmp_path / "link.json"
    os.mkfifo(fifo)
    plain = paths_in(tmp_path, 4)
    link.symlink_to(plain[0])  # a link may lead out of the job root: locate checks it, not this
    paths = [*plain[:3], str(fifo), str(missing), str(link), None, plain[3]]

    def run():
        ahead = files.ReadAhead(paths)
        for _ in paths:
            ahead.advance()

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    runner.join(10)
    assert not runner.is_alive(), "opening the FIFO waited for a writer"
    assert [path for path, _ in calls] == [plain[3]]


def test_storage_reads_are_counted_where_the_system_says():
    first = files.storage_reads()
    if os.path.exists("/proc/self/io"):
        assert isinstance(first, int) and 0 <= first <= files.storage_reads()


def test_ingest_asks_for_files_it_reads_and_ingests_the_same(tmp_path, advised, monkeypatch):
    """With the disk seen from the first attempt on, ingest asks only for files it then reads
    (or that are absent), none below a linked trajectory folder, and its outputs do not change."""
    calls, _ = advised
    monkeypatch.setattr(files, "storage_reads", lambda: 0)
    root = tmp_path / "jobs"
    shutil.copytree(
        EXAMPLE / "generated/claude-sonnet-high-x5/claude-sonnet-4-5-high/trial-01/2026-11-28__09-00-07",
        root / "oracle",
    )
    [job] = discover.find_job_folders([str(root)])
    outside = tmp_path / "outside"
    outside.mkdir()
    for attempt in discover.attempt_folders(job.path):  # each trajectory folder a link out of the root
        (job.path / attempt / "trajectory").rename(outside / attempt)
        (job.path / attempt / "trajectory").symlink_to(outside / attempt)
    plain = ingest.ingest_job(job)
    monkeypatch.setattr(files, "storage_reads", itertools.count(0, 4096).__next__)
    monkeypatch.setattr(files.ReadAhead, "PROBE", 1)
    monkeypatch.setattr(files.ReadAhead, "AHEAD", 64)  # every later attempt's paths at once
    asked = ingest.ingest_job(job)
    assert asked == plain
    read = {os.path.realpath(source["path"]) for source in asked["sources"]}
    assert len(calls) >= 6 and {path for path, _ in calls} <= read  # three attempts' files at least
    assert not any(path.startswith(str(outside)) for path, _ in calls)
