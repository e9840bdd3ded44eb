"""Whether a job folder changed, in one mechanism: stat -> hash on change -> stamp.

Only the watched files whose stat moved since the last parse (`stat_state`) are hashed and
compared with what the folder's last ingest read (its lineage record); the folder's stamp is
rewritten exactly when those bytes changed (`refresh_state`). Rule ingest takes the stamp as
input, so Snakemake's mtime trigger re-runs the ingest of that folder's batch and nothing else.
The batches (`ingest_batches`) are planned here too: a folder that moves batch has its stamp
touched. Pure of Snakemake, so that tests can drive it on real folders; a dry run (`write=False`)
gives a change as a due stamp (`due_file`) and writes nothing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import stat
import time
from pathlib import Path

from ..read import discover
from ..read.discover import (
    REVIEW_DIRS,
    REVIEW_ENTRIES,
    STRAY_RECORDS,
    TRAJECTORY,
    TRIAL_FILES,
    JobFolder,
    attempt_folders,
    linked_away,
    request_prefix,
    review_files,
)
from ..read.duplicates import attempt_records
from ..read.files import BadFile, locate, sha256_file
from .lineage import ingest_file, lineage_of
from .outputs import write_whole

STATE_DIR = Path(".snakemake", "benchreport-state")
# checkpoint ingested's record: written once every ingest of the run has run
INGESTED_RECORD = "results/ingested.json"
BATCHES = "batches.json"  # under STATE_DIR: job id -> the batch the last parse planned for it


# A job of rule ingest reads one batch of job folders: the tries of one --matrix cell together up
# to this many attempt folders; a folder of this many or more, or one outside a matrix, alone.
# A job's start (a Python, Snakemake's records of its outputs) costs as much as reading hundreds
# of attempt folders, so folders share a job, read side by side on its threads; an edited trial
# re-reads its batch.
BATCH_ATTEMPTS = 2000


def ingest_output(batch: str) -> str:
    """The first output of a batch's ingest (what its members' stamps are compared with)."""
    return ingest_file(batch, "trials")


def batch_group(job: discover.JobFolder) -> tuple[str, str] | None:
    """The --matrix cell a job folder is a try of (the alias folder above the trial-NN folder
    it sits in), whose folders may share a batch: the tries of one agent and model, so one
    setting, which an edit of any of them makes again anyway. None for a folder outside a
    matrix: folders side by side in a jobs dir may be any agent's, and each is a batch of its
    own, whatever their own names (`run-1`, `run-2`)."""
    parts = [] if job.relpath == "." else job.relpath.split("/")[:-1]
    tries = [position for position, part in enumerate(parts) if discover.TRY_FOLDER.match(part.lower())]
    return (job.root, "/".join(parts[: tries[-1]])) if tries else None


def ingest_batches(jobs: dict[str, discover.JobFolder], attempts: dict[str, int]) -> dict[str, list[str]]:
    """batch id -> its job folder ids: in job id order, the folders of one matrix cell
    (batch_group) taken together while their attempt folders add up to at most BATCH_ATTEMPTS;
    a larger folder, and one outside a matrix, is a batch of its own. A batch is named after its
    first folder, so a batch of one folder has that folder's id, and its files are where that
    folder's would be."""
    batches: dict[str, list[str]] = {}
    group: tuple[str, str] | None = None
    size = 0
    for job_id in sorted(jobs):
        count = attempts.get(job_id, 0)
        cell = batch_group(jobs[job_id])
        # a large folder, the one after it, and one outside a matrix start a batch
        alone = cell is None or count >= BATCH_ATTEMPTS or size >= BATCH_ATTEMPTS
        if not batches or alone or cell != group or size + count > BATCH_ATTEMPTS:
            batch, group, size = job_id, cell, 0
            batches[batch] = []
        batches[batch].append(job_id)
        size += count
    return batches


def batch_sources(batch: str) -> list[dict] | None:
    """Every file the batch's last ingest read (its lineage record's sources); None when it
    never ran or its record cannot be read."""
    try:
        return json.loads(Path(lineage_of(ingest_output(batch))).read_bytes())["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def recorded_sources(job: discover.JobFolder, batch: str, sources_of=batch_sources) -> dict[str, str]:
    """relpath -> sha256 of every file the job folder's last ingest read (in the lineage record
    of its batch, `batch`, as `sources_of` gives it); {} when it never ran or its record cannot
    be read."""
    sources = sources_of(batch)
    if sources is None:
        return {}
    prefix = (Path(job.root) / job.relpath).as_posix() + "/"
    return {source["path"][len(prefix) :]: source["sha256"] for source in sources if source["path"].startswith(prefix)}


def refresh_states(jobs: list[discover.JobFolder], max_requests: int, state_dir: Path = STATE_DIR, write: bool = True):
    """(job id -> its stamp file, job id -> the records of its attempt folders, which
    duplicates.find compares: duplicates.attempt_records). A folder's last ingest is that of the
    batch the last parse planned for it (plan_batches). Without `write`, see refresh_state."""
    planned = _planned_batches(state_dir)
    # a batch's record is read once, not once per folder of it whose files were touched
    sources_of = functools.cache(batch_sources)
    return refresh_folders(
        jobs,
        max_requests,
        state_dir,
        lambda job: recorded_sources(job, planned.get(job.job_id, job.job_id), sources_of),
        write=write,
    )


def stamp_file(job: JobFolder, max_requests: int, state_dir: Path = STATE_DIR) -> Path:
    """A job folder's stamp (refresh_state); its state, location and duplicates files beside it."""
    key = hashlib.sha256(f"{job.job_id}\0{max_requests}".encode()).hexdigest()[:16]
    return state_dir / f"{key}.stamp"


def planned_states(
    jobs: dict[str, JobFolder], max_requests: int, state_dir: Path = STATE_DIR
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(job id -> its stamp, batch id -> its job ids) as the run's own parse left them, read and
    never refreshed: what a cluster job's parse plans its one job from, so that it neither stats
    the folders again nor sees, in a file written since, a change its run did not plan."""
    planned = _planned_batches(state_dir)
    batches: dict[str, list[str]] = {}
    for job_id in sorted(jobs):
        batches.setdefault(planned.get(job_id, job_id), []).append(job_id)
    return {job_id: stamp_file(job, max_requests, state_dir).as_posix() for job_id, job in jobs.items()}, batches


def _planned_batches(state_dir: Path) -> dict[str, str]:
    """job id -> its batch, as the last parse planned them ({} when none did)."""
    try:
        planned = json.loads((state_dir / BATCHES).read_bytes())
    except (OSError, ValueError):
        return {}
    return planned if isinstance(planned, dict) else {}


def plan_batches(
    jobs: dict[str, discover.JobFolder],
    records: dict[str, dict],
    stamps: dict[str, str | Path],
    state_dir: Path = STATE_DIR,
    write: bool = True,
) -> dict[str, list[str]]:
    """ingest_batches of the job folders, by the attempt folders refresh_states found in each,
    saved beside the plans of other folders for the next parse's refresh_states. A folder whose
    batch is not the one the last parse planned has its stamp touched: the record its stamp was
    last compared with is another batch's, so the batch it is in now reads it again (without
    `write`, its stamp is made due instead: due_file)."""
    batches = ingest_batches(jobs, {job_id: len(records.get(job_id, ())) for job_id in jobs})
    planned = {job_id: batch for batch, members in batches.items() for job_id in members}
    saved = _planned_batches(state_dir)
    moved = [job_id for job_id, batch in planned.items() if saved.get(job_id) != batch]
    if not write:
        stamps.update({job_id: due_file(stamps[job_id]) for job_id in moved})
        return batches
    for job_id in moved:
        os.utime(stamps[job_id])
    if moved:
        state_dir.mkdir(parents=True, exist_ok=True)
        write_whole(state_dir / BATCHES, json.dumps(saved | planned, sort_keys=True))
    return batches


def _prefix_or_file_sha256(path: str, relpath: str, max_requests: int) -> str:
    """sha256 of what ingest reads of a file: a trajectory's request prefix, any other file whole
    (the same hashes ingest records as its sources)."""
    if relpath.endswith(TRAJECTORY):
        return request_prefix(path, max_requests)[2]
    return sha256_file(path)


# What an attempt folder may hold that ingest reads (a folder for the last three).
WATCHED = (*TRIAL_FILES, "trajectory", *REVIEW_DIRS)


def _watched_entries(attempt_dir: str) -> list[str]:
    """The WATCHED names an attempt folder holds; a folder that is a real folder (not a link) is
    marked with a trailing '/'."""
    with os.scandir(attempt_dir) as entries:
        return sorted(
            entry.name + ("/" if entry.is_dir(follow_symlinks=False) else "")
            for entry in entries
            if entry.name in WATCHED
        )


def stat_state(job: JobFolder, folders_before: dict | None = None) -> tuple[dict[str, list], dict[str, list]]:
    """(relpath -> [size, mtime_ns] of each file ingest reads, or [reason] when it cannot be read;
    attempt folder -> [its mtime_ns, its WATCHED entries]). No file is read.

    An attempt folder whose mtime is what `folders_before` says holds the same entries (creating,
    removing or renaming one changes it), so only the files it holds are lstat'ed: about five
    system calls per attempt, however many of the optional files are absent, each resolving
    two path components from the job folder's descriptor instead of the whole path.
    """
    job_dir = str(job.path)
    root_real = os.path.realpath(job.root)
    folders_before = folders_before or {}
    state: dict[str, list] = {}
    folders: dict[str, list] = {}

    def checked(relpath):  # any path: links resolved inside the root, or [the reason]
        try:
            info = locate(job_dir, relpath, root_real)[1]
            state[relpath] = [info.st_size, info.st_mtime_ns]
        except BadFile as exc:
            state[relpath] = [exc.reason]

    if linked_away(job):
        return state, folders
    for relpath in ("summary.json", *STRAY_RECORDS):
        checked(relpath)
    names = attempt_folders(job.path)
    if not names:
        return state, folders
    lstat, regular = os.lstat, stat.S_ISREG
    job_fd = os.open(job_dir, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in names:
            try:
                mtime = lstat(name, dir_fd=job_fd).st_mtime_ns
                known = folders_before.get(name)
                entries = known[1] if known and known[0] == mtime else _watched_entries(f"{job_dir}/{name}")
            except OSError:
                continue
            folders[name] = [mtime, entries]
            for entry in entries:
                if entry in TRIAL_FILES:
                    relpath = f"{name}/{entry}"
                elif entry == "trajectory/":
                    relpath = f"{name}/{TRAJECTORY}"
                elif entry == "trajectory":  # not a real folder: a link, whose target locate checks
                    checked(f"{name}/{TRAJECTORY}")
                    continue
                else:
                    continue
                try:  # under real folders only: a regular file needs one lstat
                    info = lstat(relpath, dir_fd=job_fd)
                except OSError:
                    info = None
                if info is not None and regular(info.st_mode):
                    state[relpath] = [info.st_size, info.st_mtime_ns]
                else:
                    checked(relpath)
            if not REVIEW_ENTRIES.isdisjoint(entries):
                for path in review_files(f"{job_dir}/{name}"):  # walked every time: a new file deep
                    checked(f"{name}/{path}")  # inside leaves the attempt folder's mtime as it was
    finally:
        os.close(job_fd)
    return state, folders


def content_changed(
    job: JobFolder, max_requests: int, before: dict, hashes: dict, now: dict, recorded
) -> tuple[bool, dict]:
    """Whether what ingest reads changed between two stat states, and the sha256 known for the
    files of `now` (relpath -> sha256), so that a touched file is hashed once.

    Only files whose size or mtime moved are read, and their sha256 is compared with the last
    parse's (`hashes`) or, failing that, with what the last ingest recorded (`recorded()`:
    relpath -> sha256, called only if needed): touching a file changes nothing, editing one does.
    """
    if before.keys() != now.keys():
        return True, {}
    known, hashes = None, dict(hashes)
    job_dir, root_real = str(job.path), os.path.realpath(job.root)
    for relpath, entry in now.items():
        old = before[relpath]
        if entry == old:
            continue
        previous = hashes.pop(relpath, None)  # the content at the old stat, if a parse hashed it
        if len(entry) == 1 or len(old) == 1:
            if entry != old[:1]:
                return True, {}
            continue
        try:
            path = locate(job_dir, relpath, root_real)[0]
            sha = _prefix_or_file_sha256(path, relpath, max_requests)
        except (BadFile, OSError):
            return True, {}
        if previous is None:
            known = recorded() if known is None else known
            previous = known.get(relpath)
        if sha != previous:
            return True, {}
        hashes[relpath] = sha
    return False, hashes


# A file or folder changed this recently may change again within the same timestamp tick (file
# systems stamp times from a coarse clock, some in 2 s steps): its stat is not kept as a sign of
# "unchanged" ("racy" entries, as git calls them), so the next parse looks at it again. A stat
# from the future (a clock ahead where the folder was written, a copy that kept its times) is
# kept while the clock has not reached it: no write since the save can have given it that mtime.
# Without that, every parse would re-hash such a folder whole.
RACY_NS = 2_000_000_000


def _racy(mtime_ns: int, since_ns: int, now_ns: int) -> bool:
    """Whether a write between `since_ns` and `now_ns` could have left this mtime as it was."""
    return since_ns - RACY_NS <= mtime_ns <= now_ns + RACY_NS


# The shape of what attempt_record gives: a cache or signature that holds records of another shape
# (written by another version of this code) has them read again.
RECORDS_FORMAT = 2


def _unracy(files: dict, hashes: dict, folders: dict, since_ns: int) -> tuple[dict, dict, dict]:
    """(files, hashes, folders) with the stats racy from `since_ns` to now made unmatchable: a
    file's mtime -1 and its sha256 dropped, a folder listing's mtime None. On saving, since the
    stats began to be taken; on reading a saved cache, since it was saved (a stat from the future
    that the clock has reached since then may have been given its mtime by a write)."""
    now = time.time_ns()
    files = {
        relpath: [entry[0], -1] if len(entry) == 2 and _racy(entry[1], since_ns, now) else entry
        for relpath, entry in files.items()
    }
    hashes = {relpath: sha for relpath, sha in hashes.items() if files[relpath][-1] != -1}
    folders = {
        name: [None, entry[1]] if entry[0] is not None and _racy(entry[0], since_ns, now) else entry
        for name, entry in folders.items()
    }
    return files, hashes, folders


def _settled(files: dict, hashes: dict, folders: dict, records: dict, since_ns: int) -> dict:
    """The cache to keep, racy stats unmatchable (_unracy), with the time the stats began to be
    taken as the time it was saved. The attempts' records (attempt_records) are kept as they
    are: one read from a file whose stat is unmatchable is read again."""
    files, hashes, folders = _unracy(files, hashes, folders, since_ns)
    return {
        "saved_ns": since_ns,
        "files": files,
        "hashes": hashes,
        "folders": folders,
        "records": records,
        "records_format": RECORDS_FORMAT,
    }


def refresh_state(
    job: JobFolder, max_requests: int, state_dir: Path, recorded, write: bool = True
) -> tuple[Path, dict]:
    """The job folder's stamp file: rewritten (so newer than the ingest outputs) exactly when what
    ingest reads changed since the last parse, or when there is none yet (see the module).

    A stat state with the sha256 of files touched since is kept next to it, and each attempt's
    record (attempt_records): a first run reads each attempt's record file (result.json) and no
    other content, a later one the records whose stats moved; when no stat moved the comparison
    is one dict equality. Returns the stamp and the records. Without `write` (a dry run) nothing
    is written, and a stamp the change calls for is given as its due_file.
    """
    stamp = stamp_file(job, max_requests, state_dir)
    cache_file = stamp.with_suffix(".json")
    location = json.dumps({"root": job.root, "relpath": job.relpath}, sort_keys=True)
    files_before: dict | None
    folders_before: dict | None
    records_before: dict | None
    try:
        cache = json.loads(cache_file.read_bytes())
        files_before, hashes_before, folders_before = _unracy(
            cache["files"], cache["hashes"], cache["folders"], cache["saved_ns"]
        )
        records_before = cache.get("records") if cache.get("records_format") == RECORDS_FORMAT else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        files_before, hashes_before, folders_before, records_before = None, {}, None, None
    started = time.time_ns()
    now, folders = stat_state(job, folders_before)
    if files_before is None or not stamp.is_file():
        changed, hashes = True, {}
    elif now == files_before:
        changed, hashes = False, hashes_before
    else:
        changed, hashes = content_changed(job, max_requests, files_before, hashes_before, now, recorded)
    records = attempt_records(job, folders, now, files_before, records_before)
    if not write:
        return due_file(stamp) if changed else stamp, records
    if changed:
        stamp.write_text(hashlib.sha256(json.dumps(now, sort_keys=True).encode()).hexdigest() + "\n")
    _write_if_changed(location_file(stamp), location)
    if (
        changed
        or now != files_before
        or hashes != hashes_before
        or folders != folders_before
        or records != records_before
    ):
        write_whole(cache_file, json.dumps(_settled(now, hashes, folders, records, started), sort_keys=True))
    return stamp, records


def due_file(stamp: str | Path) -> Path:
    """What a dry run gives rule ingest for a stamp that a real run would write (and for its
    duplicates file): a file no real run makes, which rule due_stamp is shown making, so the dry
    run lists the ingests the change calls for and writes nothing."""
    return Path(stamp).with_suffix(".due")


def location_file(stamp: Path) -> Path:
    """Where the job folder of a stamp is (root and relpath): its ingest reads it from here, not
    from its params, which lineage records publish (a folder name may hold a secret)."""
    return Path(stamp).with_suffix(".where")


def duplicates_file(stamp: Path) -> Path:
    """The places of the stamp's job folder that are attempts counted elsewhere (`duplicates`),
    as its ingest reads them. A file, not a param: a copied job folder names each of its
    attempts (~250 bytes each), more than the command line that runs ingest may hold, and the
    reasons name other folders, which lineage records would publish. A due stamp's is the stamp."""
    return Path(stamp) if Path(stamp).suffix == ".due" else Path(stamp).with_suffix(".duplicates")


def write_duplicates(stamps: dict[str, Path], found: dict[str, dict[str, str]], write: bool = True) -> None:
    """Each stamp's duplicates file, rewritten (whole, so newer than its ingest's outputs) only
    when what it holds changed: the ingest rule takes it as input, so Snakemake's mtime trigger
    re-runs exactly the ingests whose duplicates changed. Without `write`, the stamp of a file
    that would change is made due instead (due_file)."""
    for job_id, stamp in stamps.items():
        path = duplicates_file(stamp)
        if path.suffix != ".due" and not _write_if_changed(
            path, json.dumps(found.get(job_id, {}), sort_keys=True), write
        ):
            continue
        if not write:
            stamps[job_id] = due_file(stamp)


def _write_if_changed(path: Path, text: str, write: bool = True) -> bool:
    """Whether `path` does not hold `text`; if so and `write`, `text` is written whole
    (outputs.write_whole): a file beside a stamp that a job takes as input keeps its mtime while
    what it says stays the same."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except OSError:
        pass
    if write:
        write_whole(path, text)
    return True


def refresh_folders(
    jobs: list[JobFolder], max_requests: int, state_dir: Path, recorded_sources, write: bool = True
) -> tuple[dict[str, str], dict[str, dict]]:
    """(job id -> its stamp file (see refresh_state), job id -> its attempt_records);
    `recorded_sources(job)` gives relpath -> sha256 of what the job's last ingest read ({} when it
    never ran). Without `write`, see refresh_state."""
    if write:
        state_dir.mkdir(parents=True, exist_ok=True)
    stamps, records = {}, {}
    for job in jobs:
        stamp, records[job.job_id] = refresh_state(
            job, max_requests, state_dir, functools.partial(recorded_sources, job), write
        )
        stamps[job.job_id] = stamp.as_posix()
    return stamps, records
