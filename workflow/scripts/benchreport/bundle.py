"""One archive another researcher can check: every output, lineage, config, code, environment and
the job-folder files the numbers came from, secret-scanned, with a sha256 manifest.

It streams: the files are listed first (where each one's bytes come from), then read one at a time
twice, once to find every secret value anywhere (so a value seen once as a secret is redacted in
every file and file name with one label) and once to redact, hash and spool them; the tar is
written from the spool. Memory holds names and hashes, never the archive.

The tar is deterministic (sorted entries, then the four files made from them; mtime 0, root owner,
fixed modes, gzip without a name or time), so the same results give the same archive bytes.
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
from collections.abc import Mapping
from pathlib import Path

import yaml

from . import secrets
from .discover import TRAJECTORY, TRIAL_FILES, attempt_folders, request_prefix, review_files
from .files import MISSING, BadFile, locate, parse_json_bytes, sha256_file
from .ingest import SAMPLING_KEYS, exchange_parts
from .lineage import record_path

VERIFIER_FILES = ("verifier/reward.txt", "verifier/reward.json", "verifier/test-stdout.txt", "verifier/test-stderr.txt")
CODE_PATHS = ("Snakefile", "workflow", "config/schema.yaml", "config/config.yaml", "requirements.txt", "pyproject.toml")
# written last, made from the others (the manifest covers every file but itself)
MADE_LAST = ("REDACTIONS.json", "BUNDLE.json", "ro-crate-metadata.json", "MANIFEST.sha256")


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
    wanted = ["summary.json"]
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


def pinned_environment() -> str:
    """Every installed distribution, pip-freeze style (name==version, sorted by name)."""
    found = {}
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


def manifest(hashes: dict[str, str]) -> bytes:
    return "".join(f"{digest}  {name}\n" for name, digest in sorted(hashes.items())).encode()


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
    a note of what was left out of the bundle and why. `roots` maps a root label to its folder."""
    plan: dict[str, tuple] = {}
    directories: set[str] = set()
    skipped: list[dict] = []
    source_map: dict[str, str] = {}
    for ingest in ingests:
        job = ingest["job"]
        root = roots[job["label"]]
        files, folders, missed = job_files(job, root, trajectories=trajectories, max_requests=max_requests)
        skipped += missed
        base = f"jobs/{job['id']}"
        directories.add(base)
        directories.update(f"{base}/{folder}" for folder in folders)
        for relpath, source in files.items():
            plan[f"{base}/{relpath}"] = source
            source_map[(Path(root) / job["relpath"] / relpath).as_posix()] = f"{base}/{relpath}"
    for path in results:
        plan[path] = ("file", path)
        if path.startswith("results/environment/images/"):
            plan[f"replay/environment/images/{Path(path).name}"] = ("file", path)
    for relpath, source in code_files(workflow_dir).items():
        plan[f"workflow-code/{relpath}"] = source
    plan["config.yaml"] = ("bytes", yaml.safe_dump(rerun_config(config, sorted(roots)), sort_keys=True).encode())
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
    return plan, directories, {"info": info, "source_map": source_map}


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

    def read(self, name: str) -> bytes:
        offset, length = self.where[name]
        self.handle.flush()
        return os.pread(self.handle.fileno(), length, offset)

    def close(self) -> None:
        self.handle.close()


def load(source: tuple, raw: Spool | None = None, name: str = "") -> bytes:
    kind = source[0]
    if kind == "file":
        return Path(source[1]).read_bytes()
    if kind == "trajectory":
        return (
            raw.read(name) if raw is not None and name in raw.where else trajectory_extract(Path(source[1]), source[2])
        )
    return source[1]


def _agent_env_values(data: bytes) -> list[str]:
    try:
        return secrets.secret_env_values(json.loads(data).get("agent_env"))
    except (ValueError, AttributeError):
        return []


class Bundle(Mapping):
    """The redacted entries, arcname -> bytes, read back from the spool (a Mapping, so that the
    RO-Crate writer reads them like a dict); `extra` holds the few made in memory from the
    others, which are made of redacted names and bytes already."""

    def __init__(self, spool: Spool, hashes: dict[str, str], renamed: dict[str, str], values: list[str]):
        self.spool, self.hashes, self.extra = spool, hashes, {}
        self.renamed, self.values = renamed, values  # planned name -> name in the bundle; the secret values

    def name_of(self, path: str) -> str:
        """A path as the bundle holds it: its planned name renamed, any other path redacted."""
        if path in self.renamed:
            return self.renamed[path]
        return secrets.redact_text(path, self.values)[0] if self.values else path

    def __getitem__(self, name: str) -> bytes:
        return self.extra[name] if name in self.extra else self.spool.read(name)

    def __iter__(self):
        return iter(sorted({*self.spool.where, *self.extra}))

    def __len__(self) -> int:
        return len(set(self.spool.where) | set(self.extra))

    def add(self, name: str, data: bytes) -> None:
        self.extra[name] = data
        self.hashes[name] = hashlib.sha256(data).hexdigest()

    # the RO-Crate writer adds its README like an entry of a dict
    __setitem__ = add


def redact_names(names, known: list[str]) -> tuple[dict[str, str], list[dict]]:
    """name -> its redacted name (a secret in a file or folder name), and one hit row per name.
    Two names that become one keep apart by a numbered suffix."""
    renamed, hits, taken = {}, [], set()
    for name in sorted(names):
        clean, kinds = secrets.redact_text(name, known)
        if kinds:
            base, number = clean, 2
            while clean in taken:
                clean, number = f"{base}~{number}", number + 1
            hits += [{"file": clean, "kind": kind, "where": "file name"} for kind in kinds]
        taken.add(clean)
        renamed[name] = clean
    return renamed, hits


def scan_and_spool(
    plan: dict[str, tuple], directories: set[str], folder: Path, progress=None
) -> tuple[Bundle, dict, list[dict]]:
    """Two passes, one file in memory at a time. The first finds every secret value in every
    file and name (and agent_env values with secret names); the second redacts each file with
    all of them, hashes it and spools it under its redacted name. Returns the entries, the
    folder names (redacted) and one row per hit (file and label, never the value)."""
    raw, known, dirty = Spool(folder), set(), set()
    for count, name in enumerate(sorted(plan), 1):
        data = load(plan[name])
        if plan[name][0] == "trajectory":
            raw.add(name, data)
        text = data.decode("utf-8", errors="surrogateescape")
        spans = secrets.find(text)
        if spans:
            dirty.add(name)
            known |= {text[start:end] for start, end, _ in spans if secrets.propagates(text[start:end])}
        known |= secrets.values(name)
        if name.endswith("/config.json"):
            known.update(value for value in _agent_env_values(data) if secrets.propagates(value))
        if progress and count % 50000 == 0:
            progress(f"scanned {count:,} of {len(plan):,} files")
    known |= {value for directory in directories for value in secrets.values(directory)}
    values = sorted(known)
    renamed, hits = redact_names([*plan, *directories], values)
    clean, hashes = Spool(folder), {}
    for count, name in enumerate(sorted(plan), 1):
        data = load(plan[name], raw, name)
        # a file with no hit in the first pass can only hold the values found elsewhere
        data, kinds = secrets.redact(data, values) if name in dirty else secrets.redact_known(data, values)
        hits += [{"file": renamed[name], "kind": kind} for kind in kinds]
        clean.add(renamed[name], data)
        hashes[renamed[name]] = hashlib.sha256(data).hexdigest()
        if progress and count % 50000 == 0:
            progress(f"redacted and hashed {count:,} of {len(plan):,} files")
    raw.close()
    hits.sort(key=lambda hit: (hit["file"], hit["kind"], hit.get("where", "")))
    return Bundle(clean, hashes, renamed, values), {renamed[d] for d in directories}, hits


def write_targz(target: Path, prefix: str, entries: Bundle, directories: set[str]) -> None:
    """A .tar.gz whose bytes depend only on the names and contents given, written member by member."""

    def info_for(name: str, size: int | None) -> tarfile.TarInfo:
        info = tarfile.TarInfo(f"{prefix}/{name}")
        info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
        if size is None:
            info.type, info.mode = tarfile.DIRTYPE, 0o755
        else:
            info.size, info.mode = size, 0o644
        return info

    last = [name for name in MADE_LAST if name in entries.extra]
    names = sorted({*directories, *(n for n in entries.spool.where), *(n for n in entries.extra if n not in last)})
    with (
        open(target, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) as packed,
        tarfile.open(fileobj=packed, mode="w", format=tarfile.GNU_FORMAT) as tar,
    ):
        for name in [*names, *last]:
            if name in directories and name not in entries.spool.where and name not in entries.extra:
                tar.addfile(info_for(name, None))
            else:
                data = entries[name]
                tar.addfile(info_for(name, len(data)), io.BytesIO(data))
