"""Find BenchFlow job folders under the configured roots and fingerprint them.

A job folder is what one `bench eval run` writes: a folder whose children are attempt folders
(`<task>__<8 hex>/` holding result.json, config.json or solver.json). It may sit directly under a
jobs dir (plain layout) or under `<alias>/trial-NN/` (the `--matrix` layout, NN = try index).
The fingerprint covers exactly the bytes ingest will read, by content, so touching a file
changes nothing and editing one trial changes that folder's fingerprint only.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import re
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path

from .files import BadFile, locate

TRIAL_MARKERS = ("result.json", "config.json", "solver.json")
TRIAL_FILES = ("result.json", "config.json", "timing.json")
TRAJECTORY = "trajectory/llm_trajectory.jsonl"
TRY_FOLDER = re.compile(r"^(?:trial|seed|repeat|sample)-?(\d+)$")
TRIAL_NAME = re.compile(r"^(?P<task>.+)__[0-9a-f]{8}$")
MAX_REQUEST_LINE = 4 << 20


@dataclass(frozen=True)
class JobFolder:
    job_id: str  # "<root label>/<path under the root>", stable across machines
    root: str  # the root as configured
    relpath: str  # folder path under the root ("." when the root is the job folder)
    try_index: int | None  # NN of a `trial-NN` folder above it (the --matrix layout)
    alias: str | None  # the matrix alias folder above `trial-NN`

    @property
    def path(self) -> Path:
        return Path(self.root) / self.relpath


def root_labels(roots: list[str]) -> dict[str, str]:
    """A short, stable label per root: its folder name, made unique when two roots share one."""
    names = [Path(os.path.normpath(root)).name or "root" for root in roots]
    labels = {}
    for root, name in zip(roots, names):
        if names.count(name) > 1:
            name = f"{name}-{hashlib.sha256(os.path.normpath(root).encode()).hexdigest()[:6]}"
        labels[root] = name
    return labels


def is_trial_folder(path: Path) -> bool:
    return any((path / marker).is_file() or (path / marker).is_symlink() for marker in TRIAL_MARKERS)


def _children(path: Path) -> list[os.DirEntry]:
    try:
        with os.scandir(path) as entries:
            return sorted(entries, key=lambda entry: entry.name)
    except OSError:
        return []


def _is_job_folder(path: Path, children: list[os.DirEntry]) -> bool:
    dirs = [entry for entry in children if entry.is_dir(follow_symlinks=False)]
    if any(TRIAL_NAME.match(entry.name) or is_trial_folder(Path(entry.path)) for entry in dirs):
        return True
    # A finished job whose every attempt folder is gone still says so in its summary.json;
    # a jobs dir's summary.json copy names one of its child folders and is not a job.
    summary = path / "summary.json"
    if summary.is_symlink():
        return not dirs  # never read through a link here; ingest checks where it points
    if not summary.is_file() or dirs:
        return False
    try:
        data = json.loads(summary.read_bytes())
    except (OSError, ValueError):
        return True
    return not (isinstance(data, dict) and "runs" in data)


def find_job_folders(roots: list[str]) -> list[JobFolder]:
    """Every job folder under the roots, sorted by job id. Symlinked folders are not followed."""
    labels = root_labels(roots)
    found = []
    for root in roots:
        base = Path(root)
        if not base.is_dir():
            continue
        pending = [base]
        while pending:
            current = pending.pop()
            children = _children(current)
            if _is_job_folder(current, children):
                relpath = current.relative_to(base).as_posix() if current != base else "."
                found.append(_job_folder(labels[root], root, relpath))
                continue
            pending.extend(
                Path(entry.path)
                for entry in reversed(children)
                if entry.is_dir(follow_symlinks=False)
            )
    return sorted(found, key=lambda job: job.job_id)


def _job_folder(label: str, root: str, relpath: str) -> JobFolder:
    parts = [] if relpath == "." else relpath.split("/")
    try_index = alias = None
    for position, part in enumerate(parts):
        match = TRY_FOLDER.match(part)
        if match:
            try_index = int(match.group(1))
            alias = parts[position - 1] if position else None
    job_id = label if relpath == "." else f"{label}/{relpath}"
    return JobFolder(job_id=job_id, root=root, relpath=relpath, try_index=try_index, alias=alias)


def attempt_folders(job_dir: Path) -> list[str]:
    """Names of the attempt folders in a job folder (trial-looking name or a trial file)."""
    return [
        entry.name
        for entry in _children(job_dir)
        if entry.is_dir(follow_symlinks=False)
        and (TRIAL_NAME.match(entry.name) or is_trial_folder(Path(entry.path)))
    ]


def request_prefix(path: str | os.PathLike, max_requests: int, hash_name: str = "sha256") -> tuple[list[bytes], int, str]:
    """The first `max_requests` lines of an llm_trajectory.jsonl, the bytes consumed and their hash.

    Reads no further than those lines, and never more than MAX_REQUEST_LINE bytes of one line,
    so a huge trajectory costs what its first requests cost; the bytes are hashed as they are
    read, so nothing is read twice.
    """
    lines = []
    consumed = 0
    digest = hashlib.new(hash_name)
    with open(path, "rb") as handle:
        while len(lines) < max_requests:
            line = handle.readline(MAX_REQUEST_LINE + 1)
            if not line:
                break
            consumed += len(line)
            digest.update(line)
            if len(line) > MAX_REQUEST_LINE and not line.endswith(b"\n"):
                lines.append(None)
                break
            lines.append(line)
    return lines, consumed, digest.hexdigest()


def files_to_read(job_dir: Path) -> list[str]:
    """Relative paths of the files ingest reads in a job folder (whether or not they exist)."""
    paths = ["summary.json"]
    for name in attempt_folders(job_dir):
        paths.extend(f"{name}/{file}" for file in TRIAL_FILES)
        paths.append(f"{name}/{TRAJECTORY}")
    return paths


# The fingerprint only decides whether ingest runs again (lineage records sha256 of every byte
# read); sha1 is 2-3x faster than sha256 here and ample for telling an edit from no edit.
FINGERPRINT_HASH = "sha1"


def _content_hash(path: str, relpath: str, max_requests: int) -> str:
    if relpath.endswith(TRAJECTORY):
        return request_prefix(path, max_requests, FINGERPRINT_HASH)[2]
    digest = hashlib.new(FINGERPRINT_HASH)
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def fingerprint(job: JobFolder, max_requests: int, cache: dict) -> str:
    """A content hash over what ingest will read; `cache` maps relpath -> [size, mtime_ns, hash]
    and is updated in place, so an unchanged file costs one lstat and is not read again."""
    job_dir = str(job.path)
    root_real = os.path.realpath(job.root)
    seen = {}
    lines = [f"requests={max_requests}"]
    for relpath in files_to_read(job.path):
        try:
            path, info = locate(job_dir, relpath, root_real)
        except BadFile as exc:
            lines.append(f"{relpath}\tunusable:{exc.reason}")
            continue
        cached = cache.get(relpath)
        if cached and cached[0] == info.st_size and cached[1] == info.st_mtime_ns:
            content = cached[2]
        else:
            try:
                content = _content_hash(path, relpath, max_requests)
            except OSError as exc:
                content = f"unreadable:{exc.errno}"
        seen[relpath] = [info.st_size, info.st_mtime_ns, content]
        lines.append(f"{relpath}\t{content}")
    cache.clear()
    cache.update(seen)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:20]


def _cache_file(cache_dir: Path, job: JobFolder, max_requests: int) -> Path:
    name = f"{job.job_id}\0{max_requests}\0{FINGERPRINT_HASH}"
    return cache_dir / f"{hashlib.sha256(name.encode()).hexdigest()[:16]}.json"


def _fingerprint_cached(job: JobFolder, max_requests: int, cache_dir: Path) -> str:
    cache_file = _cache_file(cache_dir, job, max_requests)
    try:
        cache = json.loads(cache_file.read_bytes())
    except (OSError, ValueError):
        cache = {}
    before = dict(cache)
    found = fingerprint(job, max_requests, cache)
    if cache != before:
        cache_file.write_text(json.dumps(cache, sort_keys=True))
    return found


def fingerprints(jobs: list[JobFolder], max_requests: int, cache_dir: Path) -> dict[str, str]:
    """Fingerprint every job folder, keeping one stat cache file per job under cache_dir.

    Job folders whose cache is missing (a first run: every byte must be hashed) are spread over
    threads, one per core (hashlib and file reads release the GIL); the others cost a few lstat
    calls per attempt.
    """
    cache_dir.mkdir(parents=True, exist_ok=True)
    cold = [job for job in jobs if not _cache_file(cache_dir, job, max_requests).is_file()]
    found = {}
    workers = min(len(cold), os.cpu_count() or 1)
    if workers > 1:
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            computed = pool.map(_fingerprint_cached, cold, repeat(max_requests), repeat(cache_dir))
            found.update(zip((job.job_id for job in cold), computed))
    for job in jobs:
        if job.job_id not in found:
            found[job.job_id] = _fingerprint_cached(job, max_requests, cache_dir)
    return found
