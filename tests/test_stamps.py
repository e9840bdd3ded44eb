"""The stamp file that decides whether a job folder's ingest runs again (stamps.refresh_state):
rewritten exactly when what ingest reads changed, whatever way it changed, and never by reading
through a link out of the root."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from benchreport.pipeline import stamps
from benchreport.read import discover, duplicates, ingest
from conftest import EXAMPLE

JOB = "benchflow-real-jobs/script-run/oracle-x3/oracle/trial-01"


@pytest.fixture
def job(tmp_path):
    root = tmp_path / "jobs"
    shutil.copytree(EXAMPLE / JOB, root / "oracle")
    [folder] = discover.find_job_folders([str(root)])
    return folder


def recorded(job):
    """relpath -> sha256 of what an ingest of the folder reads now (as its lineage records it)."""
    prefix = job.path.as_posix() + "/"
    sources = ingest.ingest_job(job)["sources"]
    return {source["path"].removeprefix(prefix): source["sha256"] for source in sources}


def refresh(job, state, sources):
    stamp, _ = stamps.refresh_state(job, 20, state, lambda: sources)
    return stamp.stat().st_mtime_ns, stamp.read_text()


def attempt(job):
    return min(path for path in job.path.iterdir() if path.is_dir())


def test_unchanged_and_touched_keep_the_stamp_edits_rewrite_it(job, tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    first = refresh(job, state, recorded(job))
    assert refresh(job, state, recorded(job)) == first

    result = attempt(job) / "result.json"
    os.utime(result, ns=(1, 2))  # touched: size and mtime move, content does not
    assert refresh(job, state, recorded(job)) == first

    data = json.loads(result.read_text())
    data["rewards"] = {"reward": 0.0 if data["rewards"]["reward"] else 1.0}
    sources = recorded(job)
    result.write_text(json.dumps(data))  # edited in place: the folder's mtime does not move
    second = refresh(job, state, sources)
    assert second != first
    assert refresh(job, state, recorded(job)) == second


@pytest.mark.parametrize(
    "where", ["solver.json", "reviews/r1/result.json", "scoring/r1.json", "trajectory/llm_trajectory.jsonl"]
)
def test_a_new_file_ingest_reads_rewrites_the_stamp(job, tmp_path, where):
    state = tmp_path / "state"
    state.mkdir()
    sources = recorded(job)
    first = refresh(job, state, sources)
    target = attempt(job) / where
    if target.exists():
        target.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        assert refresh(job, state, sources) != first  # removing it counts too
        first = refresh(job, state, sources)
    target.parent.mkdir(parents=True, exist_ok=True)
    if where.startswith("reviews/"):
        # a file deep inside an existing reviews/ folder leaves the attempt folder's mtime alone
        target.parent.joinpath("placeholder.txt").write_text("x")
        first = refresh(job, state, sources)
    target.write_text("{}\n")
    assert refresh(job, state, sources) != first


def test_a_link_out_of_the_root_is_never_read(job, tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    os.mkfifo(outside / "llm_trajectory.jsonl")  # opening it would hang the test
    trajectory = attempt(job) / "trajectory"
    shutil.rmtree(trajectory, ignore_errors=True)
    trajectory.symlink_to(outside, target_is_directory=True)
    refresh(job, state, {})
    files = json.loads(next(state.glob("*.json")).read_text())["files"]
    relpath = f"{attempt(job).name}/{discover.TRAJECTORY}"
    assert files[relpath] == ["is a link pointing outside the job root; it was not read"]
    os.utime(outside / "llm_trajectory.jsonl", ns=(5, 6))
    refresh(job, state, {})  # still not read: the reason stands in for the stat


def test_a_touched_file_is_compared_with_the_hash_the_last_parse_took(job, tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    first = refresh(job, state, recorded(job))
    result = attempt(job) / "result.json"
    os.utime(result, ns=(1, 2))
    assert refresh(job, state, recorded(job)) == first  # hashed once, equal to the ingest's record

    def never():
        raise AssertionError("the last ingest's lineage record was read again")

    os.utime(result, ns=(3, 4))  # touched again: compared with the hash the last parse kept
    assert refresh(job, state, never) == first


def test_a_change_within_the_same_timestamp_tick_is_seen(job, tmp_path):
    """A folder or file changed again without its mtime moving (same coarse clock tick) right
    after a parse: the parse kept no stat of it as a sign of "unchanged", so the change is seen."""
    state = tmp_path / "state"
    state.mkdir()
    sources = recorded(job)
    folder = attempt(job)
    config = folder / "config.json"
    os.utime(folder)  # both changed just now: the parse below sees them within the same tick
    os.utime(config)
    first = refresh(job, state, sources)
    folder_stat = folder.stat()
    (folder / "solver.json").write_text("{}\n")
    os.utime(folder, ns=(folder_stat.st_atime_ns, folder_stat.st_mtime_ns))
    second = refresh(job, state, sources)
    assert second != first

    config_stat = config.stat()
    text = config.read_text()
    config.write_text(text.replace('"', "'", 1) if '"' in text else text + " ")  # same size, new bytes
    os.utime(config, ns=(config_stat.st_atime_ns, config_stat.st_mtime_ns))
    assert config.stat().st_size == config_stat.st_size
    assert refresh(job, state, sources) != second


def test_stats_from_the_future_are_trusted_until_the_clock_reaches_them(job, tmp_path, monkeypatch):
    """A folder written under a clock ahead of this one: a parse with nothing changed reads no
    file, and once this clock has passed its times, a write that kept them is still seen."""
    state = tmp_path / "state"
    state.mkdir()
    sources = recorded(job)
    ahead = stamps.time.time_ns() + 86_400 * 10**9  # a day ahead
    for path in [job.path, *job.path.rglob("*")]:
        os.utime(path, ns=(ahead, ahead))
    first = refresh(job, state, sources)
    hashed = []
    real_hash = stamps._prefix_or_file_sha256
    monkeypatch.setattr(stamps, "_prefix_or_file_sha256", lambda *a: hashed.append(a[1]) or real_hash(*a))
    assert refresh(job, state, sources) == first
    assert hashed == []  # nothing read: every stat is one no write since the save can have made

    config = attempt(job) / "config.json"
    text = config.read_text()
    config.write_text(text.replace('"', "'", 1))  # same size, new bytes, the times put back
    os.utime(config, ns=(ahead, ahead))
    clock = stamps.time.time_ns
    monkeypatch.setattr(stamps.time, "time_ns", lambda: clock() + 2 * 86_400 * 10**9)  # the day has come
    assert refresh(job, state, sources) != first
    assert "config.json" in "".join(hashed)


def settle(root):
    """Every time under `root` a day back: stats the cache keeps as signs of "unchanged", so the
    parse writes a signature (discover.SIGNED)."""
    past = stamps.time.time_ns() - 86_400 * 10**9
    for path in [*root.rglob("*"), root]:
        os.utime(path, ns=(past, past), follow_symlinks=False)


@pytest.fixture
def attempts(tmp_path):
    """A job folder of three attempt folders, one of them without a trajectory file, times settled."""
    root = tmp_path / "jobs"
    shutil.copytree(EXAMPLE / JOB, root / "oracle")
    [folder] = discover.find_job_folders([str(root)])
    first = attempt(folder)
    for number, name in enumerate(("tiny-hello__0000000a", "tiny-hello__0000000b")):
        copy = shutil.copytree(first, first.parent / name)
        (copy / "trajectory").mkdir(exist_ok=True)
        if number == 0:
            (copy / "trajectory" / "llm_trajectory.jsonl").write_text('{"request": 1}\n')
    settle(root)
    return folder


def put_back(path, change):
    """change(path), then the times of `path` (and its folder) as they were: a change the stats
    cannot see where the folder's listing is reused."""
    folder = path.parent
    stats = [(target, target.stat()) for target in (folder, path) if target.exists()]
    change(path)
    for target, info in stats:
        if target.exists():
            os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))


def rewrite(path, text=None):
    """New bytes, a new time a day back (a settled edit)."""
    path.write_text(text if text is not None else path.read_text() + " ")
    past = stamps.time.time_ns() - 86_000 * 10**9
    os.utime(path, ns=(past, past))


def link_alike(path):
    """`path` made a link to another file, the link's own size and mtime those of the file it
    replaces (its target's name padded to the file's size): only what it leads to differs."""
    info = path.stat()
    other = "other.json" if (info.st_size - len("other.json")) % 2 == 0 else "other1.json"
    rewrite(path.parent / other, "{}\n")
    path.unlink()
    path.symlink_to("./" * ((info.st_size - len(other)) // 2) + other)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns), follow_symlinks=False)
    assert os.lstat(path).st_size == info.st_size


def named(job, name):
    return next(path for path in job.path.iterdir() if path.name == name)


MUTATIONS = {
    "nothing": lambda job: None,
    "result.json edited": lambda job: rewrite(attempt(job) / "result.json"),
    "result.json edited, same size": lambda job: rewrite(
        attempt(job) / "result.json", (attempt(job) / "result.json").read_text().replace('"', "'", 1)
    ),
    "result.json touched": lambda job: os.utime(attempt(job) / "result.json", ns=(1, 2)),
    "result.json edited, times put back": lambda job: put_back(attempt(job) / "result.json", rewrite),
    "result.json a link to a copy": lambda job: (
        shutil.copy2(attempt(job) / "result.json", job.path / "copy.json"),
        put_back(
            attempt(job) / "result.json",
            lambda path: (path.unlink(), path.symlink_to(job.path / "copy.json")),
        ),
    ),
    "result.json a link, its own stat the file's": lambda job: put_back(attempt(job) / "result.json", link_alike),
    "result.json removed": lambda job: (attempt(job) / "result.json").unlink(),
    "solver.json added": lambda job: rewrite(attempt(job) / "solver.json", "{}\n"),
    "solver.json added, times put back": lambda job: put_back(
        attempt(job) / "solver.json", lambda path: rewrite(path, "{}\n")
    ),
    "a trajectory file created": lambda job: rewrite(
        named(job, "tiny-hello__0000000b") / "trajectory" / "llm_trajectory.jsonl", "{}\n"
    ),
    "a trajectory file removed": lambda job: (
        named(job, "tiny-hello__0000000a") / "trajectory" / "llm_trajectory.jsonl"
    ).unlink(),
    "a reviews folder added": lambda job: (attempt(job) / "reviews").mkdir(),
    "summary.json edited": lambda job: rewrite(job.path / "summary.json"),
    "an attempt folder removed": lambda job: shutil.rmtree(named(job, "tiny-hello__0000000b")),
    "an attempt folder added": lambda job: shutil.copytree(attempt(job), job.path / "tiny-hello__0000000c"),
    "an attempt folder renamed": lambda job: named(job, "tiny-hello__0000000b").rename(
        job.path / "tiny-hello__0000000d"
    ),
    "an attempt folder's time only": lambda job: os.utime(attempt(job), ns=(3, 4)),
}


# what leaves the bytes ingest reads as they were
UNCHANGED = (
    "nothing",
    "result.json touched",
    "result.json a link to a copy",
    "an attempt folder's time only",
    "a reviews folder added",
)
# a file added to an attempt folder whose times are then put back is not seen: the folder's listing
# is taken again only when its mtime moves (as git's untracked cache does)
NOT_SEEN = ("solver.json added, times put back",)


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_the_stamp_is_rewritten_exactly_when_what_ingest_reads_changed(attempts, tmp_path, mutation):
    sources = recorded(attempts)
    state = tmp_path / "state"
    state.mkdir()
    stamp, _ = stamps.refresh_state(attempts, 20, state, lambda: sources)
    first = stamp.read_text(), stamp.stat().st_mtime_ns
    MUTATIONS[mutation](attempts)
    stamp, records = stamps.refresh_state(attempts, 20, state, lambda: sources)
    assert ((stamp.read_text(), stamp.stat().st_mtime_ns) != first) is (mutation not in UNCHANGED + NOT_SEEN)
    now, folders = stamps.stat_state(attempts)
    assert records == duplicates.attempt_records(attempts, folders, now, None, None)  # as read afresh


def test_a_state_not_of_ours_is_set_aside(attempts, tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    stamp, records = stamps.refresh_state(attempts, 20, state, lambda: {})
    [cache] = state.glob("*.json")
    written = cache.read_bytes()
    for garbage in (b"", b"{}", b"not json", written[:-3], b"[1, 2]"):
        cache.write_bytes(garbage)
        assert stamps.refresh_state(attempts, 20, state, lambda: {})[1] == records
        assert json.loads(cache.read_bytes())["files"] == json.loads(written)["files"]


def test_trajectory_folders_linked_to_each_other_are_a_reason_not_a_crash(attempts, tmp_path):
    """Two attempt folders whose trajectory folders are links to each other: resolving either
    loops (ELOOP); the parse records why and goes on, and so does ingest."""
    one, two = (named(attempts, name) for name in ("tiny-hello__0000000a", "tiny-hello__0000000b"))
    for folder in (one, two):
        shutil.rmtree(folder / "trajectory")
    (one / "trajectory").symlink_to(two / "trajectory")
    (two / "trajectory").symlink_to(one / "trajectory")
    state = tmp_path / "state"
    state.mkdir()
    stamps.refresh_state(attempts, 20, state, lambda: {})
    files = json.loads(next(state.glob("*.json")).read_text())["files"]
    assert "link loop" in files[f"{one.name}/{discover.TRAJECTORY}"][0]
    assert ingest.ingest_job(attempts)["attempt_folders_found"] == 3
