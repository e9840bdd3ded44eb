"""One archive another researcher can check: every output, lineage, config, code, environment and
the job-folder files the numbers came from, secret-scanned, with a sha256 manifest.

It streams: the files are listed first (where each one's bytes come from), then read one at a time
twice, once to find every secret value anywhere (so a value seen once as a secret is redacted in
every file and file name with one label) and once to redact, hash and write them into the
archive. Memory holds the names, each member's size and sha256, and the lineage records (kept
aside for the RO-Crate), never the archive: at 100 job folders x 1,000 trials, 700,000 members.

The same results give the same archive bytes (Archive): sorted entries, then the five files made
from them, README.md, REDACTIONS.json, BUNDLE.json, ro-crate-metadata.json and MANIFEST.sha256.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.metadata
import io
import json
import os
import platform
import re
import tarfile
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import yaml

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


def every_output(closure: list[str], lineage_dir: Path = Path("results/lineage")) -> list[str]:
    """The closure of the outputs asked for (`closure`), with every other output of the same rule jobs (the
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
) -> tuple[dict, set, dict]:
    """What goes in (arcname -> where its bytes come from; nothing is read yet), the folders, and
    a note of what was left out of the bundle and why, with each job folder's path -> its arcname
    (`job_dirs`, for `source_of`). `roots` maps each root's label to its folder."""
    plan, directories, skipped, job_dirs = job_folders_plan(
        ingests, roots, trajectories=trajectories, max_requests=max_requests
    )
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


def job_folders_plan(
    ingests: list[dict], roots: dict[str, str], *, trajectories: bool, max_requests: int
) -> tuple[dict, set, list[dict], dict[str, str]]:
    """The job folders' part of `collect`: their files' sources, their folders, what could not
    be bundled, and each job folder's path -> its arcname. Each job folder goes in under the
    name ingest shows (its `id`, secrets redacted), read from where it is on disk."""
    plan: dict[str, tuple] = {}
    directories: set[str] = set()
    skipped: list[dict] = []
    job_dirs: dict[str, str] = {}
    for ingest in ingests:
        root, relpath = job_location(ingest["job"]["key"], roots)
        job = {"id": ingest["job"]["id"], "relpath": relpath}
        files, folders, missed = job_files(job, root, trajectories=trajectories, max_requests=max_requests)
        skipped += missed
        base = f"jobs/{job['id']}"
        directories.add(base)
        directories.update(f"{base}/{folder}" for folder in folders)
        job_dir = str(Path(root) / relpath)
        job_dirs[Path(job_dir).as_posix()] = base
        # A file read where locate() first looks (no link on the way, the usual case) shares one
        # source tuple per job folder, its path made from its name (`load`): at 700,000 files a
        # tuple and a path string each were ~250 MB.
        shared = {"file": ("job-file", base, job_dir), "trajectory": ("job-trajectory", base, job_dir, max_requests)}
        for name, source in files.items():
            plan[f"{base}/{name}"] = shared[source[0]] if source[1] == f"{job_dir}/{name}" else source
    return plan, directories, skipped, job_dirs


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

    def read(self, name: str) -> bytes:
        offset, length = self.where[name]
        self.handle.flush()
        return os.pread(self.handle.fileno(), length, offset)

    def close(self) -> None:
        self.handle.close()


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


def load(source: tuple, name: str = "", raw: Spool | None = None) -> bytes:
    """The bytes of the entry `name` planned from `source`: a file, a trajectory's extract (made
    once, in the first pass, and read back from `raw` in the second) or bytes made in memory."""
    path = source_file(source, name)
    if path is None:
        return source[1]
    if source[0] in WHOLE_FILES:
        with open(path, "rb") as handle:  # not a Path, whose making costs more than a small file's read
            return handle.read()
    if raw is not None and name in raw:
        return raw.read(name)
    return trajectory_extract(Path(path), source[-1])


def _agent_env_values(data: bytes) -> list[str]:
    try:
        return secrets.secret_env_values(json.loads(data).get("agent_env"))
    except (ValueError, AttributeError):
        return []


class Scan:
    """What the first pass found: the secret values (sorted), the names it changes (planned name
    -> name in the bundle; every other name stays), the files with a hit of their own, the
    folders as the bundle holds them, the trajectory extracts made (read back in pass 2) and the
    hit rows of the names."""

    def __init__(self, values, renamed: dict[str, str], dirty: set[str], directories: set, raw: Spool, name_hits):
        self.values, self.renamed, self.dirty, self.directories, self.raw = values, renamed, dirty, directories, raw
        self.name_hits: list[dict] = name_hits

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


def redact_names(names, known: list[str], clean: set[str]) -> tuple[dict[str, str], list[dict]]:
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


def scan(plan: dict[str, tuple], directories: set[str], folder: Path, progress=None) -> Scan:
    """The first pass, one file in memory at a time: every secret value in every file and name
    (and secret agent_env values), and the names they change."""
    raw = Spool(folder)
    values, dirty, dirty_names = find_secrets(plan, sorted(directories), raw, progress)
    values = sorted(values)
    everything = [*plan, *directories]
    renamed, hits = redact_names(everything, values, clean=set(everything) - dirty_names)
    return Scan(values, renamed, dirty, {renamed.get(d, d) for d in directories}, raw, hits)


def find_secrets(plan: dict[str, tuple], folders: list[str], raw: Spool, progress=None) -> tuple:
    """(the secret values found, the files with a hit, the names with a hit) over the planned
    files and the folder names `folders`; each trajectory extract made is added to `raw`."""
    known: set[str] = set()
    dirty: set[str] = set()
    dirty_names: set[str] = set()

    def search(text: str, key: str, hits: set[str]) -> None:  # `key`: the file or the name searched
        spans = secrets.find(text)
        if spans:
            hits.add(key)
            known.update(text[start:end] for start, end, _ in spans if secrets.propagates(text[start:end]))

    names = sorted(plan)
    ahead = ReadAhead(source_file(plan[name], name) for name in names)
    for count, name in enumerate(names, 1):
        data = load(plan[name], name)
        ahead.advance()
        if plan[name][0] in TRAJECTORIES:
            raw.add(name, data)
        search(data.decode("utf-8", errors="surrogateescape"), name, dirty)
        search(name, name, dirty_names)
        if name.endswith("/config.json"):
            known.update(value for value in _agent_env_values(data) if secrets.propagates(value))
        if progress and count % 50000 == 0:
            progress(f"scanned {count:,} of {len(names):,} files")
    for folder in folders:
        search(folder, folder, dirty_names)
    return known, dirty, dirty_names


def redacted(plan: dict[str, tuple], found: Scan, progress=None):
    """The second pass: (name in the bundle, bytes or None for a folder, hit rows) in archive
    order, each file redacted with every value the first pass found."""
    order = found.order(plan)
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
            progress(f"redacted and hashed {count:,} of {len(order):,} entries")


def sort_hits(hits: list[dict]) -> list[dict]:
    return sorted(hits, key=lambda hit: (hit["file"], hit["kind"], hit["rule"], hit.get("where", "")))


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
    rather than through a TarInfo a member: the same bytes, and the same ValueError where ustar
    cannot hold the name or the size (tests/test_bundle_stream.py compares the two)."""
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


class Archive:
    """The .tar.gz being written member by member, whose bytes depend only on the names and
    contents given (mtime 0, root owner, fixed modes, gzip without a name or time). It keeps each
    file's size and sha256 (`files`, in the order written: for the manifest and the RO-Crate) and
    a copy of the files `keep` names (read back with `read`). Written here rather than by
    tarfile.TarFile, which keeps a TarInfo of every member it wrote (~300 MB at 700,000)."""

    def __init__(self, target: Path, prefix: str, folder: Path, keep=lambda name: False):
        self.prefix, self.keep = prefix, keep
        self.raw = open(target, "wb")
        compressed = gzip.GzipFile(filename="", mode="wb", fileobj=self.raw, compresslevel=6, mtime=0)
        # headers, small files and padding reach deflate 64 KiB at a time: a compress call each
        # took longer than the compression
        self.stream = io.BufferedWriter(compressed, 1 << 16)
        self.kept = Spool(folder)
        self.files: dict[str, tuple[int, bytes]] = {}
        self.length = 0  # of the tar stream, which close() pads to a whole record

    def _write(self, data: bytes) -> None:
        self.stream.write(data)
        self.length += len(data)

    def _header(self, name: str, size: int | None) -> None:
        # ustar's one 512-byte header where the name fits its 155 + 100 split at a "/" (nearly
        # every name): GNU's format adds a header and a block for each name over 100 characters,
        # which doubled what verify parses. A name or size past ustar's fields keeps GNU's forms.
        try:
            header = ustar_header(f"{self.prefix}/{name}", size)
        except ValueError:
            header = tar_info(f"{self.prefix}/{name}", size).tobuf(tarfile.GNU_FORMAT, "utf-8", "surrogateescape")
        self._write(header)

    def _end_member(self, size: int) -> None:
        if size % tarfile.BLOCKSIZE:
            self._write(tarfile.NUL * (tarfile.BLOCKSIZE - size % tarfile.BLOCKSIZE))

    def folder(self, name: str) -> None:
        self._header(name, None)

    def add(self, name: str, data: bytes) -> None:
        self._header(name, len(data))
        self._write(data)
        self._end_member(len(data))
        self.files[name] = (len(data), hashlib.sha256(data).digest())
        if self.keep(name):
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

    def read(self, name: str) -> bytes:
        return self.kept.read(name)

    def close(self) -> None:
        """The end of the archive as tarfile writes it (two zero blocks, then zeros to a whole
        record of 20 blocks), then gzip's."""
        end = 2 * tarfile.BLOCKSIZE
        self._write(tarfile.NUL * (end + -(self.length + end) % tarfile.RECORDSIZE))
        self.stream.close()  # and so the gzip stream, which leaves `raw` open
        self.raw.close()
        self.kept.close()


def write_members(archive: Archive, plan: dict[str, tuple], found: Scan, progress=None) -> list:
    """The second pass into `archive`: every planned file and folder, redacted, in archive order.
    Returns the hit rows."""
    hits = []
    for name, data, rows in redacted(plan, found, progress):
        if data is None:
            archive.folder(name)
        else:
            archive.add(name, data)
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
