"""Find BenchFlow job folders under the configured roots, and the files of their attempt folders.

A job folder is what one `bench eval run` writes: a folder whose children are attempt folders
(`<task>__<8 hex>/` holding result.json, config.json or solver.json). It may sit directly under a
jobs dir (plain layout) or under `<alias>/trial-NN/` (the `--matrix` layout, NN = try index).
Whether one changed is stamps.py's question; an attempt reached twice, duplicates.py's.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import stat
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .files import printable, sha256_bytes
from .identity import TRIAL_NAME
from .secrets import REDACTED_MARK, find, replace_spans

TRIAL_MARKERS = ("result.json", "config.json", "solver.json")
TRIAL_FILES = ("result.json", "config.json", "timing.json", "solver.json")
# A trial's record lying in the job folder itself, outside any attempt folder: no trial BenchFlow
# reads, so a ledger row, and watched and bundled so that the row follows it.
STRAY_RECORDS = ("result.json", "solver.json")
TRAJECTORY = "trajectory/llm_trajectory.jsonl"
# bundled with each attempt so a reader can check its score; read by no stage
VERIFIER_FOLDER = "verifier"
VERIFIER_FILES = tuple(
    f"{VERIFIER_FOLDER}/{name}" for name in ("reward.txt", "reward.json", "test-stdout.txt", "test-stderr.txt")
)
# Rubric review revisions: every file under these folders of an attempt is read.
REVIEW_DIRS = ("reviews", "scoring")
REVIEW_ENTRIES = frozenset((*REVIEW_DIRS, *(f"{name}/" for name in REVIEW_DIRS)))  # as listed, or a link
# A folder that names a try: `trial-NN` as --matrix writes it, and the names researchers give
# the folders they run each try into (`try-2`, `run_3`, `seed-1`, ...), at any depth under a root.
TRY_FOLDER = re.compile(r"^(?:trial|try|run|seed|repeat|sample)[-_]?(\d+)$")
MAX_REQUEST_LINE = 4 << 20
# request_prefix reads through a 64 KiB buffer, not the default 8 KiB, since request lines run to
# kilobytes each (benchmarks/RESULTS.md).
REQUEST_BUFFER = 1 << 16
# A folder name used as it is in a job id (a Snakemake wildcard and a path under results/):
# no braces, newlines, slashes or other characters a wildcard or a file name cannot carry.
SAFE_NAME = re.compile(r"^[A-Za-z0-9_+,=@~-][A-Za-z0-9._ ()+,=@~-]{0,99}$")
# names a bundle unpacked on Windows could not hold: its device names (with any extension) and a
# trailing dot or space, which Windows drops (so "a." and "a" would be one file there)
WINDOWS_UNSAFE = re.compile(r"^(?:CON|PRN|AUX|NUL|COM[0-9]|LPT[0-9])(?:\..*)?$|[. ]$", re.I)


@dataclass(frozen=True)
class JobFolder:
    job_id: str  # "<root label>/<path under the root>" made safe (see safe_part): paths, wildcards
    root: str  # the root as configured
    relpath: str  # folder path under the root ("." when the root is the job folder)
    try_index: int | None  # NN of the innermost try folder above it (`trial-NN`, the --matrix layout)
    alias: str | None  # the matrix alias folder above that try folder
    name: str = ""  # the real "<root label>/<path>" as outputs show it (printable, secrets redacted)
    label: str = ""  # the root's label

    @property
    def path(self) -> Path:
        return Path(self.root) / self.relpath


def redact_text(text: str, known_values=()) -> tuple[str, list[str]]:
    """secrets.redact_text, with the kinds of labels already in the text counted too, all in the
    order they stand."""
    spans = find(text, known_values)
    marks = [(match.start(), match.group(1)) for match in REDACTED_MARK.finditer(text)]
    redacted = replace_spans(text, spans) if spans else text
    return redacted, [kind for _, kind in sorted([(start, kind) for start, _, kind in spans] + marks)]


def safe_part(part: str) -> tuple[str, str, list[str]]:
    """(safe id, shown name, kinds of secrets redacted) of one folder name.

    The shown name is the real one with undecodable bytes written out and secrets replaced; the
    id is the shown name when it can be a wildcard and a file name, else a slug of it with a hash
    (under 60 characters) of the real name, or of the shown one where a secret was replaced."""
    shown, kinds = redact_text(printable(part))
    if SAFE_NAME.match(shown) and shown == part and not WINDOWS_UNSAFE.search(part):
        return part, shown, kinds
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", shown).strip("-.")[:40] or "folder"
    # a name with a secret is known by its shown name: a bundle holds only that name, and the id
    # must come out the same when the bundle is re-run
    digest = sha256_bytes(os.fsencode(shown if kinds else part))[:8]
    safe = f"{slug}-{digest}"
    return f"_{safe}" if WINDOWS_UNSAFE.search(safe) else safe, shown, kinds


def try_folders(relpath: str) -> list[int]:
    """The try numbers of the try-named folders (TRY_FOLDER: `trial-NN`, `seed-N`, `repeat-N`,
    `sample-N` as BenchFlow's viewer reads them, trajectories/viewer/outcomes.py `_REPEAT` in
    `_trial_facts`, and `try-N`, `run-N`) on a job folder's path under its root, outermost first."""
    parts = [] if relpath == "." else relpath.split("/")
    return [int(match.group(1)) for match in map(TRY_FOLDER.match, (part.lower() for part in parts)) if match]


def root_labels(roots: list[str]) -> dict[str, str]:
    """A short, stable label per root: its folder name, made unique when two roots share one."""
    names = [Path(os.path.normpath(root)).name or "root" for root in roots]
    labels = {}
    for root, name in zip(roots, names):
        if names.count(name) > 1:
            name = f"{name}-{hashlib.sha256(os.path.normpath(root).encode()).hexdigest()[:6]}"
        labels[root] = name
    return labels


def _mode(path: Path) -> int:
    """The file type bits of a path, not following a link; 0 when it cannot be seen (absent, or
    in a folder that cannot be searched, where pathlib's is_file raises)."""
    try:
        return stat.S_IFMT(os.lstat(path).st_mode)
    except OSError:
        return 0


def listing(path: Path) -> list[os.DirEntry]:
    """The entries of a folder in name order; OSError when it cannot be listed."""
    with os.scandir(path) as entries:
        return sorted(entries, key=lambda entry: entry.name)


def _children(path: Path) -> list[os.DirEntry]:
    try:
        return listing(path)
    except OSError:
        return []


def is_attempt(entry: os.DirEntry) -> bool:
    """Whether a folder's entry is one of its attempt folders: a real folder (not a link) with a
    trial-looking name, or with a trial file and no trial-named folder in it (a job folder
    holding a stray copy of a result.json is a job folder still: its attempts are not lost)."""
    if not entry.is_dir(follow_symlinks=False):
        return False
    if TRIAL_NAME.match(entry.name):
        return True
    path = Path(entry.path)
    return any(_mode(path / marker) in (stat.S_IFREG, stat.S_IFLNK) for marker in TRIAL_MARKERS) and not any(
        TRIAL_NAME.match(child.name) and child.is_dir(follow_symlinks=False) for child in _children(path)
    )


def _is_job_folder(path: Path, children: list[os.DirEntry]) -> bool:
    dirs = [entry for entry in children if entry.is_dir(follow_symlinks=False)]
    if any(map(is_attempt, dirs)):
        return True
    # A finished job whose every attempt folder is gone still says so in its summary.json;
    # a jobs dir's summary.json copy names one of its child folders and is not a job.
    summary = path / "summary.json"
    if _mode(summary) == stat.S_IFLNK:
        return not dirs  # never read through a link here; ingest checks where it points
    if _mode(summary) != stat.S_IFREG or dirs:
        return False
    try:
        data = json.loads(summary.read_bytes())
    except (OSError, ValueError):
        return True
    return not (isinstance(data, dict) and "runs" in data)


def linked_away(job: JobFolder) -> str | None:
    """Why a job folder is not read when it is a link below its root (links are never followed
    into: the target may lie outside every root, or be counted where it is), else None."""
    if job.relpath == "." or not os.path.islink(job.path):
        return None
    target = os.path.realpath(job.path)
    root = os.path.realpath(job.root)
    if target != root and not target.startswith(root + os.sep):
        return "a link pointing outside the job root; links are not followed, nothing under it is read"
    return (
        f"a link to {Path(os.path.relpath(target, root)).as_posix()} in the same job root; links are not "
        "followed, the folder is counted where it is"
    )


def find_job_folders(roots: list[str]) -> list[JobFolder]:
    """Every job folder under the roots, sorted by job id. Symlinked folders are not followed.

    A folder that cannot be listed, and a link to a folder, are returned too: their ingest says
    why nothing under them is read, in the ledger. A root listed twice is searched once. Below a
    job folder the folders that are not its attempt folders are searched too (a job folder
    copied into another, a folder of attempts beside a stray one holding result.json), so that
    every attempt folder found is counted or ledgered; a folder nested in an attempt folder is
    part of that attempt, as BenchFlow reads it, never an attempt of its own."""
    firsts: dict[str, str] = {}
    for root in roots:
        firsts.setdefault(os.path.normpath(root), root)
    roots = list(firsts.values())
    labels = root_labels(roots)
    found = []
    for root in roots:
        base = Path(root)
        if not base.is_dir():
            continue
        pending = [base]
        while pending:
            current = pending.pop()
            try:
                children = listing(current)
            except OSError:
                children = None
            if children is None or _is_job_folder(current, children):
                relpath = current.relative_to(base).as_posix() if current != base else "."
                found.append(_job_folder(labels[root], root, relpath))
                # its links are its ingest's to ledger, its attempt folders its own
                pending.extend(
                    Path(entry.path)
                    for entry in reversed(children or [])
                    if entry.is_dir(follow_symlinks=False) and not is_attempt(entry)
                )
                continue
            pending.extend(Path(entry.path) for entry in reversed(children) if entry.is_dir(follow_symlinks=False))
            found.extend(
                _job_folder(labels[root], root, Path(entry.path).relative_to(base).as_posix())
                for entry in children
                if entry.is_symlink() and entry.is_dir()
            )
    return distinct_ids(sorted(found, key=lambda job: (job.job_id, job.root, job.relpath)))


def distinct_ids(jobs: list[JobFolder]) -> list[JobFolder]:
    """Job folders whose ids came out the same (names that differ only in a secret are shown,
    and so named, alike) told apart, so that none is left out: the second and later of them, in
    root and path order, get "~2", "~3" appended."""
    seen: Counter[str] = Counter()
    told_apart = []
    for job in jobs:
        seen[job.job_id] += 1
        number = seen[job.job_id]
        told_apart.append(job if number == 1 else dataclasses.replace(job, job_id=f"{job.job_id}~{number}"))
    return told_apart


def _job_folder(label: str, root: str, relpath: str) -> JobFolder:
    parts = [] if relpath == "." else relpath.split("/")
    tried = [position for position, part in enumerate(parts) if TRY_FOLDER.match(part.lower())]
    named = [safe_part(part) for part in [label, *parts]]
    return JobFolder(
        job_id="/".join(key for key, _, _ in named),
        root=root,
        relpath=relpath,
        try_index=try_folders(relpath)[-1] if tried else None,  # the innermost try folder's
        alias=safe_part(parts[tried[-1] - 1])[1] if tried and tried[-1] else None,  # the folder above it
        name="/".join(shown for _, shown, _ in named),
        label=label,
    )


def attempt_folders(job_dir: Path) -> list[str]:
    """Names of the attempt folders in a job folder (trial-looking name or a trial file); none in
    a link (see linked_away: the caller passes the job folder's own path)."""
    if os.path.islink(job_dir):
        return []
    return [entry.name for entry in _children(job_dir) if is_attempt(entry)]


def request_prefix(path: str | os.PathLike, max_requests: int) -> tuple[list[bytes | None], int, str]:
    """The first `max_requests` lines of an llm_trajectory.jsonl, the bytes consumed and their hash,
    never more than MAX_REQUEST_LINE bytes of one line: a huge trajectory costs what its first
    requests cost, and the bytes are hashed as they are read, so nothing is read twice."""
    lines: list[bytes | None] = []
    consumed = 0
    digest = hashlib.sha256()
    with open(path, "rb", buffering=REQUEST_BUFFER) as handle:
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


def review_files(attempt_dir: str) -> list[str]:
    """Paths (under the attempt folder) of the files in its reviews/ and scoring/ folders, sorted;
    a folder that is a link is not entered (its files could lie outside the root), nor one that
    cannot be listed. Walked with a list of folders to visit, not by recursion (os.walk's, in
    Python 3.11), which a chain of a thousand nested folders would exhaust."""
    found: list[str] = []
    for sub in REVIEW_DIRS:
        try:
            if not stat.S_ISDIR(os.lstat(f"{attempt_dir}/{sub}").st_mode):
                continue
        except OSError:
            continue
        pending = [sub]
        while pending:
            current = pending.pop()
            try:
                entries = listing(Path(attempt_dir, current))
            except OSError:
                continue
            found.extend(f"{current}/{entry.name}" for entry in entries if not entry.is_dir())
            pending.extend(
                f"{current}/{entry.name}" for entry in reversed(entries) if entry.is_dir(follow_symlinks=False)
            )
    return found


def find_jobs(roots: list[str]) -> dict[str, JobFolder]:
    """job id -> job folder under `roots`; ValueError (the message a user reads) when a root is
    missing, is or lies inside a trial folder, or no root holds a job folder."""
    missing = [root for root in roots if not Path(root).is_dir()]
    if missing:
        raise ValueError(f"job_roots: these folders do not exist: {', '.join(missing)}")
    jobs = find_job_folders(roots)
    searched = {os.path.normpath(job.root) for job in jobs}
    for root in roots:
        found = trial_folder_of(Path(root), holds_jobs=os.path.normpath(root) in searched)
        if found is not None:
            trial, held = found
            where = "" if trial == Path(root) else f"inside {trial}, "
            raise ValueError(
                f"job_roots: {root} is {where}a trial folder of a job ({held}): give its job folder's parent, "
                f"{os.path.normpath(trial / os.pardir / os.pardir)}, as job_roots"
            )
    if not jobs:
        raise ValueError(
            f"No BenchFlow job folder found under job_roots ({', '.join(roots)}): a job "
            "folder holds <task>__<8 hex> attempt folders with result.json or config.json."
        )
    return {job.job_id: job for job in jobs}


def trial_folder_of(root: Path, holds_jobs: bool) -> tuple[Path, str] | None:
    """(the trial folder, what shows it) when a job root is one trial (attempt) of a job or lies
    inside one, else None. A trial folder is named `<task>__<8 hex>`, as BenchFlow names them,
    and holds result.json, solver.json or config.json; a root under which no job folder was
    found is one by its result.json or solver.json alone too (a project's config.json is no
    sign). Only a root found holding no job folder may lie inside one, named so."""
    for folder in [root] if holds_jobs else [root, *root.parents]:
        named = bool(TRIAL_NAME.match(Path(os.path.abspath(folder)).name))
        markers = TRIAL_MARKERS if named else ("result.json", "solver.json") if folder == root else ()
        held = next((marker for marker in markers if (folder / marker).is_file()), None)
        if held and (named or not holds_jobs):
            return folder, f"it holds {held}"
        if named and not holds_jobs:
            return folder, "its name is <task>__<8 hex>, as BenchFlow names a trial folder"
    return None
