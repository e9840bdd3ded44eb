"""One archive another researcher can check: every output, lineage, config, code, environment and
the job-folder files the numbers came from, secret-scanned, with a sha256 manifest.

It streams: the files are listed first (where each one's bytes come from), then read one at a time
twice, once to find every secret value anywhere (so a value seen once as a secret is redacted in
every file and file name with one label) and once to redact, hash and write them into the
archive. Memory holds the names, each member's size and sha256, and the lineage records (kept
aside for the RO-Crate), never the archive: at 100 job folders x 1,000 trials, 700,000 members.

The tar is deterministic (sorted entries, then the five files made from them, in this order:
README.md, REDACTIONS.json, BUNDLE.json, ro-crate-metadata.json and MANIFEST.sha256, which covers
every file but itself; mtime 0, root owner, fixed modes, gzip without a name or time), so the same
results give the same archive bytes.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import itertools
import json
import os
import platform
import re
import shutil
import struct
import tarfile
import tempfile
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path

import yaml

from ..pipeline.forked import even_shares, forked_map
from ..pipeline.lineage import record_path
from ..read import secrets
from ..read.discover import (
    STRAY_RECORDS,
    TRAJECTORY,
    TRIAL_FILES,
    VERIFIER_FILES,
    attempt_folders,
    request_prefix,
    review_files,
    safe_part,
)
from ..read.files import MISSING, BadFile, ReadAhead, locate, parse_json_bytes, sha256_file
from ..read.ingest import SAMPLING_KEYS, exchange_parts

CODE_PATHS = (
    "Snakefile",
    "workflow",
    "config/schema.yaml",
    "config/config.yaml",
    "requirements.txt",
    "pyproject.toml",
)


def trajectory_extract(path: Path, max_requests: int) -> bytes:
    """The first requests of a trajectory, keeping only what ingest reads from them: the sampling
    keys of each request body and the served model. Messages and completions stay behind."""
    lines = request_prefix(path, max_requests)[0]
    kept = []
    for line in lines:
        if line is None:
            break
        try:
            exchange = parse_json_bytes(line, "line")
        except BadFile:
            kept.append(line)  # unparsable lines are kept as they are, so re-ingest sees them too
            continue
        if not isinstance(exchange, dict):
            kept.append(line)
            continue
        body, response_body, metadata = exchange_parts(exchange)
        slim = {
            "request": {"body": {key: body[key] for key in SAMPLING_KEYS if key in body}},
            "response": {"body": {"model": response_body["model"]} if "model" in response_body else {}},
            "metadata": {"provider_model": metadata["provider_model"]} if "provider_model" in metadata else {},
        }
        kept.append((json.dumps(slim, sort_keys=True) + "\n").encode())
    return b"".join(kept)


def job_files(job: dict, root: str, *, trajectories: bool, max_requests: int) -> tuple[dict, list[str], list[dict]]:
    """relpath -> where its bytes come from, for the files of one job folder that go in; its
    attempt folders; and what could not be bundled. Nothing outside the job root is read."""
    job_dir = Path(root) / job["relpath"]
    root_real = os.path.realpath(root)
    if job["relpath"] != "." and os.path.islink(job_dir):  # a link below the root: never read (linked_away)
        return {}, [], []
    wanted = ["summary.json", *STRAY_RECORDS]
    folders = attempt_folders(job_dir)
    for folder in folders:
        wanted += [f"{folder}/{name}" for name in (*TRIAL_FILES, *VERIFIER_FILES, TRAJECTORY)]
        wanted += [f"{folder}/{name}" for name in review_files(f"{job_dir}/{folder}")]
    found, skipped = {}, []
    for relpath in wanted:
        try:
            real = locate(str(job_dir), relpath, root_real)[0]
        except BadFile as exc:
            if exc.reason != MISSING:
                skipped.append({"file": f"{job['id']}/{relpath}", "reason": exc.reason})
            continue
        reduced = relpath.endswith(TRAJECTORY) and not trajectories
        found[relpath] = ("trajectory", str(real), max_requests) if reduced else ("file", str(real))
    return found, folders, skipped


def job_location(key: str, roots: dict[str, str]) -> tuple[str, str]:
    """(root, relpath on disk) of the job folder whose key is `key`, given each root by its label.
    Ingest records a job folder's label and relpath with any secret in them redacted, so they
    need not name a folder that exists; the key names each folder on the way by its id
    (discover.safe_part), found by listing a folder only where a name is not its own id."""
    label_id, *ids = key.split("/")
    root = {safe_part(label)[0]: root for label, root in roots.items()}[label_id]
    names: list[str] = []
    for name_id in ids:
        here = os.path.join(root, *names)
        if not (os.path.lexists(os.path.join(here, name_id)) and safe_part(name_id)[0] == name_id):
            try:
                children = sorted(os.listdir(here))
            except OSError:
                children = []
            name_id = next((name for name in children if safe_part(name)[0] == name_id), name_id)
        names.append(name_id)
    return root, "/".join(names) or "."


def _job_files_share(jobs: list[tuple[dict, str]], options: dict) -> list[tuple]:
    """job_files of each (job, root), each file's source given by its kind alone where it is read
    where locate() first looks: what comes back from a forked share is then mostly names."""
    found = []
    for job, root in jobs:
        files, folders, missed = job_files(job, root, **options)
        job_dir = str(Path(root) / job["relpath"])
        listed = [
            (relpath, source[0] if source[1] == f"{job_dir}/{relpath}" else source) for relpath, source in files.items()
        ]
        found.append((listed, folders, missed))
    return found


def pinned_environment() -> str:
    """Every installed distribution, pip-freeze style (name==version, sorted by name)."""
    found: dict[str, str] = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(re.sub(r"[-_.]+", "-", name).lower(), f"{name}=={dist.version}")
    lines = [f"# Python {platform.python_version()} ({platform.python_implementation()})"]
    return "\n".join(lines + [found[key] for key in sorted(found)]) + "\n"


def code_files(workflow_dir: Path) -> dict:
    files = {}
    for name in CODE_PATHS:
        base = workflow_dir / name
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else []
        for path in paths:
            # compiled modules and the metadata `pip install -e .` leaves beside the package are
            # not code that ran
            if not any(part == "__pycache__" or part.endswith(".egg-info") for part in path.parts):
                files[path.relative_to(workflow_dir).as_posix()] = ("file", str(path))
    return files


def rerun_config(config: dict, labels: list[str]) -> dict:
    """The config that re-runs the report stages from the bundle alone: the bundled job roots
    keep their labels, so every job id, and so every output, is the same."""
    rerun = json.loads(json.dumps(config))
    rerun["job_roots"] = [f"jobs/{label}" for label in labels]
    rerun.setdefault("controls", {}).setdefault("run", {})["enabled"] = False
    rerun.setdefault("environment", {})["records_from"] = "replay/environment/images"
    return rerun


def every_output(outputs: list[str], closure: list[str], lineage_dir: Path = Path("results/lineage")) -> list[str]:
    """The closure of the outputs asked for, with every other output of the same rule jobs (the
    files a rule writes beside the one a later rule reads: settings.tex, the PNG figures, an
    ingest's index.json) and their records. A record of a rule job that is not in this run (a
    setting since removed, older code) is not taken, nor a file whose bytes its record does not match."""

    def job(record: dict) -> tuple:
        return (
            record.get("rule"),
            json.dumps(record.get("wildcards"), sort_keys=True),
            record.get("code", {}).get("sha256"),
        )

    ran = {
        job(json.loads(Path(path).read_text(encoding="utf-8")))
        for path in closure
        if path.startswith("results/lineage/")
    }
    found = set(closure)
    for record_file in sorted(lineage_dir.rglob("*.json")) if lineage_dir.is_dir() else []:
        if record_file.as_posix() in found:
            continue
        record = json.loads(record_file.read_text(encoding="utf-8"))
        output = record.get("output", "")
        if job(record) not in ran:
            continue
        if output.startswith("results/bundle/") or record_path(output).as_posix() != record_file.as_posix():
            continue
        if Path(output).is_file() and sha256_file(output) == record.get("sha256"):
            found.update({output, record_file.as_posix()})
    return sorted(found)


def collect(
    *,
    name: str,
    results: list[str],
    ingests: list[dict],
    roots: dict[str, str],
    config: dict,
    workflow_dir: Path,
    trajectories: bool,
    max_requests: int,
    git: dict,
    processes: int = 1,
) -> tuple[dict, set, dict]:
    """What goes in (arcname -> where its bytes come from; nothing is read yet), the folders, and
    a note of what was left out of the bundle and why, with each job folder's path -> its arcname
    (`job_dirs`, for `source_of`). `roots` maps each root's label to its folder. The job folders
    are looked through in `processes` shares side by side (forked_map: ~9 lstat an attempt, 4.3 s
    at 100 job folders x 1,000 trials in one process); the plan is the same. Each job folder goes
    in under the name ingest shows (its `id`, secrets redacted), read from where it is on disk."""
    plan: dict[str, tuple] = {}
    directories: set[str] = set()
    skipped: list[dict] = []
    job_dirs: dict[str, str] = {}
    jobs = []
    for ingest in ingests:
        root, relpath = job_location(ingest["job"]["key"], roots)
        jobs.append(({"id": ingest["job"]["id"], "relpath": relpath}, root))
    options = {"trajectories": trajectories, "max_requests": max_requests}
    shares = [(share, options) for share in even_shares(jobs, processes)]
    found = itertools.chain.from_iterable(forked_map(_job_files_share, shares))
    for (job, root), (files, folders, missed) in zip(jobs, found, strict=True):
        skipped += missed
        base = f"jobs/{job['id']}"
        directories.add(base)
        directories.update(f"{base}/{folder}" for folder in folders)
        job_dir = str(Path(root) / job["relpath"])
        job_dirs[(Path(root) / job["relpath"]).as_posix()] = base
        # A file read where locate() first looks (no link on the way, the usual case) shares one
        # source tuple per job folder, its path made from its name (`load`): at 700,000 files a
        # tuple and a path string each were ~250 MB.
        shared = {"file": ("job-file", base, job_dir), "trajectory": ("job-trajectory", base, job_dir, max_requests)}
        for relpath, source in files:
            plan[f"{base}/{relpath}"] = shared[source] if isinstance(source, str) else source
    for path in results:
        plan[path] = ("file", path)
        if path.startswith("results/environment/images/"):
            plan[f"replay/environment/images/{Path(path).name}"] = ("file", path)
    for relpath, source in code_files(workflow_dir).items():
        plan[f"workflow-code/{relpath}"] = source
    labels = sorted({ingest["job"]["label"] for ingest in ingests})
    plan["config.yaml"] = ("bytes", yaml.safe_dump(rerun_config(config, labels), sort_keys=True).encode())
    plan["environment/requirements.lock"] = ("bytes", pinned_environment().encode())
    info = {
        "name": name,
        "workflow": {"git": git, "code": "workflow-code/ holds the files that ran (the working tree)"},
        "python": platform.python_version(),
        "trajectories": "whole files"
        if trajectories
        else f"only the first {max_requests} requests, reduced to their sampling keys and served model",
        "not_bundled": sorted(skipped, key=lambda row: row["file"]),
        "rerun": "benchreport verify <this archive> (or python -m benchreport verify)",
    }
    return plan, directories, {"info": info, "job_dirs": job_dirs}


class Spool:
    """Bytes of many entries in one temporary file: appended once, read back by name."""

    def __init__(self, folder: Path):
        self.handle = tempfile.TemporaryFile(dir=folder)
        self.where: dict[str, tuple[int, int]] = {}
        self.size = 0

    def add(self, name: str, data: bytes) -> None:
        self.handle.write(data)
        self.where[name] = (self.size, len(data))
        self.size += len(data)

    def __contains__(self, name: str) -> bool:
        return name in self.where

    def took(self, where: dict[str, tuple[int, int]]) -> None:
        """The index of what a forked process appended (its copy of `where`): read here from now."""
        self.where, self.size = where, sum(length for _, length in where.values())

    def flush(self) -> None:
        self.handle.flush()

    def read(self, name: str) -> bytes:
        offset, length = self.where[name]
        self.flush()
        return os.pread(self.handle.fileno(), length, offset)

    def close(self) -> None:
        self.handle.close()


class Spools:
    """Spools read as one: each share of the first pass writes its own."""

    def __init__(self, spools: list[Spool]):
        self.spools = spools

    def add(self, spool: Spool) -> None:
        self.spools.append(spool)

    def __contains__(self, name: str) -> bool:
        return any(name in spool for spool in self.spools)

    def read(self, name: str) -> bytes:
        return next(spool for spool in self.spools if name in spool).read(name)

    def close(self) -> None:
        for spool in self.spools:
            spool.close()


# The kinds of planned source read from a file: whole, or a trajectory's extract (made once, in
# the first pass, and read back from the spool in the second); a "job-" one is a job-folder file
# at <job folder>/<name past the base>, the others name their file.
WHOLE_FILES = ("job-file", "file")
TRAJECTORIES = ("job-trajectory", "trajectory")


def source_file(source: tuple, name: str) -> str | None:
    """The file the entry `name` planned from `source` is read from; None for bytes made here."""
    if source[0].startswith("job-"):
        return source[2] + name[len(source[1]) :]
    return source[1] if source[0] in WHOLE_FILES + TRAJECTORIES else None


def planned_path(source: tuple, name: str) -> str:
    """source_file of an entry planned from a file (a whole file, a job file or a trajectory)."""
    path = source_file(source, name)
    assert path is not None  # only bytes made here have none
    return path


def load(source: tuple, name: str = "", raw: Spool | Spools | None = None) -> bytes:
    """The bytes of the entry `name` planned from `source`: a file, a trajectory's extract (made
    once, in the first pass, and read back from `raw` in the second) or bytes made in memory."""
    kind = source[0]
    if kind in WHOLE_FILES:
        with open(planned_path(source, name), "rb") as handle:  # not a Path: 3 us each, 1.2 million reads
            return handle.read()
    if kind in TRAJECTORIES:
        if raw is not None and name in raw:
            return raw.read(name)
        return trajectory_extract(Path(planned_path(source, name)), source[-1])
    return source[1]


def _agent_env_values(data: bytes) -> list[str]:
    try:
        return secrets.secret_env_values(json.loads(data).get("agent_env"))
    except (ValueError, AttributeError):
        return []


class Scan:
    """What the first pass found: the secret values (sorted), the names it changes (planned name
    -> name in the bundle; every other name stays), the files with a hit of their own, the
    folders as the bundle holds them, the trajectory extracts made (read back in pass 2) and the
    sizes of the entries that are not job-folder files (`planned_sizes`)."""

    def __init__(self, values, renamed: dict[str, str], dirty: set[str], directories: set, raw: Spools, sizes: dict):
        self.values, self.renamed, self.dirty, self.directories, self.raw = values, renamed, dirty, directories, raw
        self.sizes = sizes
        self.name_hits: list[dict] = []

    def name_of(self, path: str) -> str:
        """A path as the bundle holds it: its planned name renamed, any other path redacted."""
        if path in self.renamed:
            return self.renamed[path]
        return secrets.redact_text(path, self.values)[0] if self.values else path

    def order(self, plan: Mapping) -> list[tuple[str, str | None]]:
        """(name in the bundle, planned name or None for a folder) in archive order: sorted by the
        name in the bundle. A folder that is also a file's name is only the file."""
        planned = {self.renamed.get(name, name): name for name in plan}
        folders = {name: None for name in self.directories if name not in planned}
        return sorted({**planned, **folders}.items(), key=lambda item: item[0])


def redact_names(names, known: list[str], clean=frozenset()) -> tuple[dict[str, str], list[dict]]:
    """name -> its redacted name, for each name with a secret in it (a file or folder name), and
    one hit row per hit. `clean` are names the first pass found no secret in: each needs only the
    search for the known values. Two names that become one keep apart by a numbered suffix, and
    so does one that would become a name that is already there."""
    found = {}
    # with no known value, a clean name has nothing to find: only the others are searched
    for name in sorted(names if known else set(names) - set(clean)):
        redact = secrets.redact_known_hits if name in clean else secrets.redact_hits
        data, kinds = redact(name.encode("utf-8", "surrogateescape"), known)
        if kinds:
            found[name] = (data.decode("utf-8", "surrogateescape"), kinds)
    renamed, hits = {}, []
    taken = set(names) - set(found) if found else set()
    for name, (text, kinds) in found.items():
        base, number = text, 2
        while text in taken:
            text, number = f"{base}~{number}", number + 1
        hits += [{"file": text, "kind": kind, "rule": rule, "where": "file name"} for kind, rule in kinds]
        taken.add(text)
        renamed[name] = text
    return renamed, hits


def scan(plan: dict[str, tuple], directories: set[str], folder: Path, progress=None, processes: int = 1) -> Scan:
    """The first pass, one file in memory at a time: every secret value in every file and name
    (and secret agent_env values), and the names they change. The files are split in
    `processes` contiguous shares, each scanned in a process forked from this one (forked_map; one
    after the other where it cannot fork), with a share of the folder names: what each finds is
    a set, so the union is the same whatever the split. The shares are balanced by cost
    (SCAN_COST and the bytes)."""
    names = sorted(plan)
    sizes = planned_sizes(plan)
    bounds = sorted(set(balanced_bounds([entry_cost(name, sizes, SCAN_COST) for name in names], processes)))
    spools = [Spool(folder) for _ in bounds[1:]]
    folders = even_shares(sorted(directories), len(spools))
    shares = [
        (plan, names[start:end], share, spool, progress)
        for start, end, share, spool in zip(bounds, bounds[1:], folders, spools)
    ]
    known: set[str] = set()
    dirty: set[str] = set()
    dirty_names: set[str] = set()
    for spool, (values, files, file_names, where) in zip(spools, forked_map(_scan_files, shares)):
        known |= values
        dirty |= files
        dirty_names |= file_names
        spool.took(where)
    raw = Spools(spools)
    if progress:
        progress("first pass: the shares are done")
    values = sorted(known)
    everything = [*plan, *directories]
    renamed, hits = redact_names(everything, values, clean=set(everything) - dirty_names)
    found = Scan(values, renamed, dirty, {renamed.get(d, d) for d in directories}, raw, sizes)
    found.name_hits = hits
    return found


def _scan_files(plan: dict[str, tuple], names: list[str], folders: list[str], raw: Spool, progress=None) -> tuple:
    """One share of the first pass: (the secret values found, the files with a hit, the names
    with a hit, where each trajectory extract made is in `raw`, which it writes and flushes), over
    the files `names` and the folder names `folders`."""
    known: set[str] = set()
    dirty: set[str] = set()
    dirty_names: set[str] = set()

    def scan_name(name: str) -> None:
        in_name = secrets.find(name)
        if in_name:
            dirty_names.add(name)
            known.update(name[start:end] for start, end, _ in in_name if secrets.propagates(name[start:end]))

    ahead = ReadAhead(source_file(plan[name], name) for name in names)
    for count, name in enumerate(names, 1):
        data = load(plan[name], name)
        ahead.advance()
        if plan[name][0] in TRAJECTORIES:
            raw.add(name, data)
        text = data.decode("utf-8", errors="surrogateescape")
        spans = secrets.find(text)
        if spans:
            dirty.add(name)
            known.update(text[start:end] for start, end, _ in spans if secrets.propagates(text[start:end]))
        scan_name(name)
        if name.endswith("/config.json"):
            known.update(value for value in _agent_env_values(data) if secrets.propagates(value))
        if progress and count % 50000 == 0:
            progress(f"scanned {count:,} of {len(names):,} files of a share")
    for folder in folders:
        scan_name(folder)
    raw.flush()  # the bytes reach the file this process shares with the one that forked it
    return known, dirty, dirty_names, raw.where


def redacted(plan: dict[str, tuple], found: Scan, progress=None, order: list | None = None):
    """The second pass: (name in the bundle, bytes or None for a folder, hit rows) in archive
    order (or of `order`, a part of it), each file redacted with every value the first pass
    found."""
    order = found.order(plan) if order is None else order
    # the trajectory extracts are read back from found.raw, not from their files
    to_read = (
        source_file(plan[planned], planned) if planned is not None and plan[planned][0] in WHOLE_FILES else None
        for _, planned in order
    )
    ahead = ReadAhead(to_read)
    for count, (name, planned) in enumerate(order, 1):
        data = None if planned is None else load(plan[planned], planned, found.raw)
        ahead.advance()
        if data is None:
            yield name, None, []
            continue
        # a file with no hit in the first pass can only hold the values found elsewhere
        redact = secrets.redact_hits if planned in found.dirty else secrets.redact_known_hits
        data, kinds = redact(data, found.values)
        yield name, data, [{"file": name, "kind": kind, "rule": rule} for kind, rule in kinds]
        if progress and count % 50000 == 0:
            progress(f"redacted and hashed {count:,} of {len(order):,} entries of a share")


class Bundle(Mapping):
    """The redacted entries, arcname -> bytes, read back from a spool (for a caller that wants
    them by name rather than in an archive: `scan_and_spool`)."""

    def __init__(self, spool: Spool, hashes: dict[str, str], found: Scan):
        self.spool, self.hashes, self.found = spool, hashes, found

    def name_of(self, path: str) -> str:
        return self.found.name_of(path)

    def __getitem__(self, name: str) -> bytes:
        return self.spool.read(name)

    def __iter__(self):
        return iter(sorted(self.spool.where))

    def __len__(self) -> int:
        return len(self.spool.where)


def sort_hits(hits: list[dict]) -> list[dict]:
    return sorted(hits, key=lambda hit: (hit["file"], hit["kind"], hit["rule"], hit.get("where", "")))


def scan_and_spool(
    plan: dict[str, tuple], directories: set[str], folder: Path, progress=None
) -> tuple[Bundle, set, list[dict]]:
    """Both passes, into a spool: the redacted entries by name (with their sha256), the folder
    names (redacted) and one row per hit (file, label and rule, never the value)."""
    found = scan(plan, directories, folder, progress)
    spool, hashes, hits = Spool(folder), {}, list(found.name_hits)
    for name, data, rows in redacted(plan, found, progress):
        if data is not None:
            spool.add(name, data)
            hashes[name] = hashlib.sha256(data).hexdigest()
            hits += rows
    found.raw.close()
    return Bundle(spool, hashes, found), found.directories, sort_hits(hits)


# What a member costs pass 2 beside its bytes, counted in bytes: opening it, its tar header and
# its hash. Measured at 100 job folders x 1,000 trials: pass 2 takes ~45 us a
# job-folder file and ~10 ns a byte of content, so a member is worth a few KiB. The shares of
# both passes are balanced by cost, not by count: the outputs (~480 MB there, a few hundred
# files) would otherwise all fall in the last share.
MEMBER_COST = 4096
# The same for pass 1, the secret scan: ~48 us a job-folder file of ~1 KB (read ahead of the
# scan, files.ReadAhead) and ~15 ns a byte of content since the scan's literals are found by an
# automaton (secrets.Literals; 74 us and 48 ns before, when 1536 was right, and with it the share
# holding the outputs ended ~10 s before the other).
SCAN_COST = 2200
# The tar stream is compressed in blocks, each on its own (no history from the block before) and
# ended by a sync flush: the blocks join into one deflate stream, so the archive's bytes are the
# same whichever process compresses which block, and the second pass can be split over
# processes (`write_members`). A block closes once its members cost this much (about 3,000
# job-folder files, or one large output alone); the fresh start costs nothing measurable in size.
BLOCK_COST = 16 << 20
# gzip's header as gzip.GzipFile writes it with mtime=0 and no file name: deflate, no flags, mtime
# 0, no extra flags, operating system unknown
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
CRC32_POLYNOMIAL = 0xEDB88320  # reflected, as zlib uses it


def _times_mod_crc(a: int, b: int) -> int:
    """a(x) * b(x) modulo the CRC-32 polynomial, both bit-reflected (zlib's multmodp); a != 0."""
    bit, product = 1 << 31, 0
    while True:
        if a & bit:
            product ^= b
            if a & (bit - 1) == 0:
                return product
        bit >>= 1
        b = (b >> 1) ^ CRC32_POLYNOMIAL if b & 1 else b >> 1


def crc32_combine(crc1: int, crc2: int, length2: int) -> int:
    """The CRC-32 of A + B from A's, B's and B's length (zlib's crc32_combine, which Python's zlib
    does not expose): A's CRC times x^(8 * length2), plus B's."""
    power, square = 1 << 31, 1 << 30  # x^0 and x^1, bit-reflected
    for _ in range(3):
        square = _times_mod_crc(square, square)  # x^2, x^4, x^8: a shift by one byte
    while length2:
        if length2 & 1:
            power = _times_mod_crc(square, power)
        length2 >>= 1
        square = _times_mod_crc(square, square)
    return _times_mod_crc(power, crc1) ^ crc2


def tar_info(name: str, size: int | None) -> tarfile.TarInfo:
    """A member's header fields: a file of `size` bytes (None: a folder), owner 0, mtime 0."""
    info = tarfile.TarInfo(name)
    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
    if size is None:
        info.type, info.mode = tarfile.DIRTYPE, 0o755
    else:
        info.size, info.mode = size, 0o644
    return info


def ustar_header(name: str, size: int | None) -> bytes:
    """tar_info(name, size).tobuf(tarfile.USTAR_FORMAT, "utf-8", "surrogateescape"), made here
    (~700,000 headers at 100 x 1,000, 15 us each through a TarInfo): the same bytes, and the
    same ValueError where ustar cannot hold the name or the size (tests/test_bundle_stream.py
    compares the two)."""
    if size is None:
        name, mode, size, kind = name if name.endswith("/") else name + "/", b"0000755\0", 0, b"5"
    else:
        mode, kind = b"0000644\0", b"0"
    if size >= 8**11:
        raise ValueError("overflow in number field")
    encoded, prefix = name.encode("utf-8", "surrogateescape"), b""
    if len(encoded) > tarfile.LENGTH_NAME:  # split at the first "/" that leaves both parts short enough
        parts = encoded.split(b"/")
        for cut in range(1, len(parts)):
            prefix, encoded = b"/".join(parts[:cut]), b"/".join(parts[cut:])
            if len(prefix) <= tarfile.LENGTH_PREFIX and len(encoded) <= tarfile.LENGTH_NAME:
                break
        else:
            raise ValueError("name is too long")
    zeros = b"0000000\0"  # uid, gid
    header = b"".join(
        (
            encoded.ljust(100, b"\0"),
            mode,
            zeros,
            zeros,
            b"%011o\0" % size,
            b"00000000000\0",  # mtime
            b"        ",  # the checksum's place, counted as spaces
            kind,
            bytes(100),  # linkname
            tarfile.POSIX_MAGIC,
            bytes(32 + 32 + 8 + 8),  # uname, gname, devmajor, devminor
            prefix.ljust(155, b"\0"),
            bytes(12),
        )
    )
    return header[:148] + b"%06o\0" % sum(header) + header[155:]


class Members:
    """A run of tar members written to `out` as raw deflate, in blocks the caller closes
    (`end_block`; the run starts one), with the CRC-32 and length of the tar bytes: one share of
    the archive, which Archive joins to the others. Each file's size and sha256 are kept (`files`, in
    the order written), and a copy of the files `keep` names in `kept`.

    The tar stream is written here rather than with tarfile.TarFile, which keeps a TarInfo of
    every member it wrote (~300 MB at 700,000 members); each header is ustar_header's (tarfile's
    bytes), or tarfile's own in GNU's format where ustar cannot hold it."""

    # Small pieces (headers, small files, padding) are compressed WRITES_TOGETHER bytes at a time:
    # deflate's output depends on the bytes and the flushes, not on how they are handed over, and
    # three compress, crc32 and write calls a member cost ~2 s of pass 2 at 700,000 members.
    WRITES_TOGETHER = 1 << 16

    def __init__(self, prefix: str, out, keep=lambda name: False, kept: Spool | None = None, files=None):
        self.prefix, self.out, self.keep, self.kept = prefix, out, keep, kept
        self.files: dict[str, tuple[int, bytes]] = {} if files is None else files
        self.crc = self.length = 0
        self.compressor: zlib._Compress | None = None
        self.pending: list[bytes] = []
        self.pending_size = 0

    def _write(self, data: bytes) -> None:
        """`data` next in the tar stream (`length` counts it at once; `crc` once it is compressed:
        end_block and end_stream compress what is pending)."""
        self.length += len(data)
        if self.pending_size + len(data) < self.WRITES_TOGETHER:
            self.pending.append(data)
            self.pending_size += len(data)
            return
        self._compress(b"".join(self.pending))
        self._compress(data)

    def _compress(self, data: bytes) -> None:
        self.pending, self.pending_size = [], 0
        if not data:
            return
        if self.compressor is None:
            self.compressor = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
        self.out.write(self.compressor.compress(data))
        self.crc = zlib.crc32(data, self.crc)

    def _header(self, name: str, size: int | None) -> None:
        # One 512-byte header where the name fits ustar's 155 + 100 split at a "/" (nearly every
        # name): GNU's format adds a header and a block for each name over 100 characters, which
        # doubled what verify parses. A name or size past ustar's fields keeps GNU's long forms.
        try:
            header = ustar_header(f"{self.prefix}/{name}", size)
        except ValueError:
            header = tar_info(f"{self.prefix}/{name}", size).tobuf(tarfile.GNU_FORMAT, "utf-8", "surrogateescape")
        self._write(header)

    def _end_member(self, size: int) -> None:
        if size % tarfile.BLOCKSIZE:
            self._write(tarfile.NUL * (tarfile.BLOCKSIZE - size % tarfile.BLOCKSIZE))

    def end_block(self) -> None:
        """Close the block being written (a sync flush: byte-aligned, not the stream's end)."""
        self._compress(b"".join(self.pending))
        if self.compressor is not None:
            self.out.write(self.compressor.flush(zlib.Z_SYNC_FLUSH))
            self.compressor = None

    def end_stream(self, zeros: int) -> None:
        """The archive's last bytes: `zeros` zero bytes (tar's end), then the deflate stream's
        final block."""
        self._write(tarfile.NUL * zeros)
        self._compress(b"".join(self.pending))
        assert self.compressor is not None  # made by the zeros just compressed
        self.out.write(self.compressor.flush(zlib.Z_FINISH))
        self.compressor = None

    def folder(self, name: str) -> None:
        self._header(name, None)
        self._end_member(0)

    def add(self, name: str, data: bytes) -> None:
        self._header(name, len(data))
        self._write(data)
        self._end_member(len(data))
        self.files[name] = (len(data), hashlib.sha256(data).digest())
        if self.keep(name):
            assert self.kept is not None  # a keep rule comes with the spool it keeps to
            self.kept.add(name, data)

    def add_file(self, name: str, handle) -> None:
        """A member from an open binary file (read from its start), hashed as it is copied."""
        size = handle.seek(0, os.SEEK_END)
        handle.seek(0)
        self._header(name, size)
        digest = hashlib.sha256()
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            self._write(chunk)
        self._end_member(size)
        self.files[name] = (size, digest.digest())


class Archive:
    """The .tar.gz being written member by member, whose bytes depend only on the names and
    contents given (mtime 0, root owner, fixed modes, gzip without a name or time): one gzip
    member whose deflate stream is the Members runs joined in order (`join`, for runs written by
    other processes) and those added here. It keeps each file's size and sha256 (`files`, in the
    order written: for the manifest and the RO-Crate) and a copy of the files `keep` names (read
    back with `read`)."""

    def __init__(self, target: Path, prefix: str, folder: Path, keep=lambda name: False):
        self.prefix, self.keep, self.spool_folder = prefix, keep, folder
        self.raw = open(target, "wb")
        self.raw.write(GZIP_HEADER)
        self.kept = Spools([Spool(folder)])
        self.files: dict[str, tuple[int, bytes]] = {}
        self.crc = self.length = 0
        self.members: Members | None = None

    def _members(self) -> Members:
        if self.members is None:
            self.members = Members(self.prefix, self.raw, self.keep, self.kept.spools[0], self.files)
        return self.members

    def _fold(self, crc: int, length: int) -> None:
        self.crc = crc32_combine(self.crc, crc, length)
        self.length += length

    def join(self, compressed, crc: int, length: int, files: dict, kept: Spool) -> None:
        """A run of Members written by another process into the file `compressed` (from its
        start, its last block closed), its CRC-32 and length, its files and its kept files."""
        if self.members is not None:  # the run written here ends, so the joined one starts a block
            self.members.end_block()
            self._fold(self.members.crc, self.members.length)
            self.members = None
        compressed.flush()
        compressed.seek(0)
        shutil.copyfileobj(compressed, self.raw, 1 << 20)
        self._fold(crc, length)
        self.files.update(files)
        self.kept.add(kept)

    def folder(self, name: str) -> None:
        self._members().folder(name)

    def add(self, name: str, data: bytes) -> None:
        self._members().add(name, data)

    def add_file(self, name: str, handle) -> None:
        self._members().add_file(name, handle)

    def read(self, name: str) -> bytes:
        return self.kept.read(name)

    def close(self) -> None:
        """The end of the archive as tarfile writes it (two zero blocks, then zeros to a whole
        record of 20 blocks), the deflate stream's last block and gzip's CRC-32 and length."""
        members = self._members()
        end = 2 * tarfile.BLOCKSIZE
        end += -(self.length + members.length + end) % tarfile.RECORDSIZE
        members.end_stream(end)
        self._fold(members.crc, members.length)
        self.raw.write(struct.pack("<II", self.crc, self.length & 0xFFFFFFFF))
        self.members = None
        self.raw.close()
        self.kept.close()


def planned_sizes(plan: dict[str, tuple]) -> dict[str, int]:
    """name -> size of each planned entry that is not a small job-folder file: the outputs, the
    code, the bytes made here (a few thousand, some of hundreds of MB) and whole trajectories
    (bundle.trajectories: true; often MBs each). The other job-folder files are small and counted
    by number (MEMBER_COST, SCAN_COST), so the 600,000 of them need no stat."""
    sizes = {}
    for name, source in plan.items():
        if source[0] == "file":
            sizes[name] = os.stat(source[1]).st_size
        elif source[0] == "bytes":
            sizes[name] = len(source[1])
        elif source[0] == "job-file" and name.endswith(TRAJECTORY):
            sizes[name] = os.stat(planned_path(source, name)).st_size
    return sizes


def entry_cost(name: str | None, sizes: dict[str, int], per_member: int = MEMBER_COST) -> int:
    """What writing a planned entry (None: a folder) costs, in bytes; or reading and scanning it,
    with per_member=SCAN_COST."""
    return per_member + (0 if name is None else sizes.get(name, 0))


def balanced_bounds(costs: list[int], parts: int) -> list[int]:
    """Cut points (0 first, len(costs) last) of `costs` into `parts` contiguous runs of about
    equal sum: each cut before or after the cost its share of the total falls in, whichever is
    nearer (so one large cost is not taken with everything before it)."""
    total, running, bounds = sum(costs), 0, [0]
    for position, cost in enumerate(costs):
        while len(bounds) < parts and (running + cost) * parts >= total * len(bounds):
            target = total * len(bounds) / parts
            bounds.append(position if target - running < running + cost - target else position + 1)
        running += cost
    return bounds + [len(costs)] * (parts + 1 - len(bounds))


def compression_blocks(order: list, sizes: dict[str, int]) -> tuple[list[int], list[int]]:
    """Where each block of the archive order ends (an index past its last member), and its cost:
    a block closes once its members cost BLOCK_COST, the last at the end. A function of the names
    and sizes alone."""
    ends, costs, cost = [], [], 0
    for position, (_, planned) in enumerate(order, 1):
        cost += entry_cost(planned, sizes)
        if cost >= BLOCK_COST or position == len(order):
            ends.append(position)
            costs.append(cost)
            cost = 0
    return ends, costs


def _write_share(plan: dict[str, tuple], found: Scan, order: list, ends: set, prefix: str, keep, out, kept, progress):
    """One share of the second pass, a Members run into `out` whose blocks close after the
    positions in `ends`: (its CRC-32, its length, each file's size and sha256 in the order of
    `order`, where its kept files are in `kept`, its hit rows). The files' names stay behind: the
    caller has them, and 700,000 names pickled back and rebuilt were each a second copy of a
    name the caller holds."""
    members, hits = Members(prefix, out, keep, kept), []
    for position, (name, data, rows) in enumerate(redacted(plan, found, progress, order), 1):
        if data is None:
            members.folder(name)
        else:
            members.add(name, data)
            hits += rows
        if position in ends:
            members.end_block()
    out.flush()  # the bytes reach the files this process shares with the one that forked it
    kept.flush()
    return members.crc, members.length, list(members.files.values()), kept.where, hits


def write_members(archive: Archive, plan: dict[str, tuple], found: Scan, processes: int = 1, progress=None) -> list:
    """The second pass into `archive`: every planned file and folder, redacted, in archive order,
    in `processes` contiguous shares of whole compression blocks of about equal cost
    (`compression_blocks`), the first written by this process and each other by a forked one
    (forked_map); the archive's bytes do not depend on the split. Returns the hit rows."""
    order = found.order(plan)
    ends, costs = compression_blocks(order, found.sizes)
    bounds = sorted({0, len(order), *(ends[block - 1] for block in balanced_bounds(costs, processes) if block)})
    parts = [order[start:end] for start, end in zip(bounds, bounds[1:])]
    outs = [tempfile.TemporaryFile(dir=archive.spool_folder) for _ in parts]
    kept = [Spool(archive.spool_folder) for _ in parts]
    shares = []
    for part, start, end, out, spool in zip(parts, bounds, bounds[1:], outs, kept):
        block_ends = {position - start for position in ends if start < position <= end}
        shares.append((plan, found, part, block_ends, archive.prefix, archive.keep, out, spool, progress))
    del order
    if progress:
        progress(f"second pass: {len(ends):,} blocks in {len(shares)} shares")
    hits = []
    for part, out, spool, (crc, length, entries, where, rows) in zip(
        parts, outs, kept, forked_map(_write_share, shares)
    ):
        spool.took(where)
        names = (name for name, planned in part if planned is not None)
        archive.join(out, crc, length, dict(zip(names, entries)), spool)
        out.close()
        hits += rows
    return hits


def write_manifest(handle, files: Mapping[str, tuple[int, bytes]]) -> None:
    """MANIFEST.sha256: "<sha256>  <name>" for every file, sorted by name."""
    for name in sorted(files):
        handle.write(f"{files[name][1].hex()}  {name}\n".encode())


class Records(Mapping):
    """output -> its lineage record, as the archive holds it, parsed when asked for (the RO-Crate
    reads each a few times; an ingest's lists thousands of job-folder files). The last two parsed
    are kept: a rule job's outputs share the record that lists its sources."""

    def __init__(self, archive: Archive, outputs: list[str]):
        self.archive = archive
        self.where = {
            output: record
            for output in outputs
            if not output.startswith("results/lineage/")
            and (record := f"results/lineage/{output[len('results/') :]}.json") in archive.kept
        }
        self.recent: dict[str, dict] = {}

    def __getitem__(self, output: str) -> dict:
        if output not in self.recent:
            if len(self.recent) >= 2:
                self.recent.pop(next(iter(self.recent)))
            self.recent[output] = json.loads(self.archive.read(self.where[output]))
        return self.recent[output]

    def __iter__(self):
        return iter(self.where)

    def __len__(self) -> int:
        return len(self.where)


def source_of(job_dirs: dict[str, str], files: Mapping) -> Callable[[str], str | None]:
    """A job-folder path as a lineage record lists it -> its arcname in the bundle, or None: the
    job folder is found by walking up the path (a file lies a few folders below it), its name
    as the bundle holds it comes first, and the rest of the path follows."""

    def find(path: str) -> str | None:
        head, rest = path, ""
        while "/" in head:
            head, _, part = head.rpartition("/")
            rest = f"{part}/{rest}" if rest else part
            base = job_dirs.get(head)
            if base is not None and f"{base}/{rest}" in files:
                return f"{base}/{rest}"
        # a root "." that is itself the job folder: its files are recorded by their relpath alone
        return f"{job_dirs['.']}/{path}" if "." in job_dirs and f"{job_dirs['.']}/{path}" in files else None

    return find
