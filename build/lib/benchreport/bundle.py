"""One archive another researcher can check: outputs, lineage, config, code, environment and the
job-folder files the numbers came from, secret-scanned, with a sha256 manifest.

The tar is deterministic (sorted entries, mtime 0, root owner, fixed modes, gzip without a name
or time), so the same results give the same archive bytes.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.metadata
import io
import json
import os
import platform
import tarfile
from pathlib import Path

import yaml

from .discover import TRAJECTORY, TRIAL_FILES, attempt_folders, request_prefix, review_files
from .files import MISSING, BadFile, locate, parse_json_bytes
from .ingest import SAMPLING_KEYS, exchange_parts
from .secrets import redact, secret_env_values

VERIFIER_FILES = ("verifier/reward.txt", "verifier/reward.json", "verifier/test-stdout.txt", "verifier/test-stderr.txt")
CODE_PATHS = ("Snakefile", "workflow", "config/schema.yaml", "config/config.yaml", "requirements.txt", "pyproject.toml")
PINNED = ("snakemake", "numpy", "scipy", "jinja2", "pyyaml", "matplotlib", "pygments")


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


def job_files(job: dict, root: str, *, trajectories: bool, max_requests: int) -> tuple[list[tuple[str, bytes]], list[str], list[dict]]:
    """(relpath, bytes) of the files of one job folder that go in, its attempt folders, and what
    could not be bundled. Nothing outside the job root is read."""
    job_dir = Path(root) / job["relpath"]
    root_real = os.path.realpath(root)
    wanted = ["summary.json"]
    folders = attempt_folders(job_dir)
    for folder in folders:
        wanted += [f"{folder}/{name}" for name in (*TRIAL_FILES, *VERIFIER_FILES, TRAJECTORY)]
        wanted += [f"{folder}/{name}" for name in review_files(f"{job_dir}/{folder}")]
    found, skipped = [], []
    for relpath in wanted:
        try:
            real = locate(str(job_dir), relpath, root_real)[0]
            if relpath.endswith(TRAJECTORY) and not trajectories:
                data = trajectory_extract(real, max_requests)
            else:
                data = Path(real).read_bytes()
        except BadFile as exc:
            if exc.reason == MISSING:
                continue
            skipped.append({"file": f"{job['id']}/{relpath}", "reason": exc.reason})
            continue
        except OSError as exc:
            skipped.append({"file": f"{job['id']}/{relpath}", "reason": exc.strerror or str(exc)})
            continue
        found.append((relpath, data))
    return found, folders, skipped


def pinned_environment() -> str:
    lines = [f"# Python {platform.python_version()} ({platform.python_implementation()})"]
    for name in PINNED:
        try:
            lines.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            pass
    return "\n".join(lines) + "\n"


def code_files(workflow_dir: Path) -> list[tuple[str, bytes]]:
    files = []
    for name in CODE_PATHS:
        base = workflow_dir / name
        paths = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else []
        for path in paths:
            if "__pycache__" in path.parts:
                continue
            files.append((path.relative_to(workflow_dir).as_posix(), path.read_bytes()))
    return files


def rerun_config(config: dict, labels: list[str]) -> dict:
    """The config that re-runs the report stages from the bundle alone: the bundled job roots
    keep their labels, so every job id, and so every output, is the same."""
    rerun = json.loads(json.dumps(config))
    rerun["job_roots"] = [f"jobs/{label}" for label in labels]
    rerun.setdefault("controls", {}).setdefault("run", {})["enabled"] = False
    rerun.setdefault("environment", {})["records_from"] = "replay/environment/images"
    return rerun


def manifest(entries: dict[str, bytes]) -> bytes:
    return "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in sorted(entries.items())).encode()


def deterministic_targz(prefix: str, entries: dict[str, bytes], directories: set[str]) -> bytes:
    """A .tar.gz whose bytes depend only on the names and contents given."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        names = sorted({*(f"{prefix}/{d}" for d in directories), *(f"{prefix}/{n}" for n in entries)})
        for name in names:
            info = tarfile.TarInfo(name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            relative = name[len(prefix) + 1:]
            if relative in entries:
                data = entries[relative]
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
            else:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
    packed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=packed, mtime=0, compresslevel=9) as handle:
        handle.write(raw.getvalue())
    return packed.getvalue()


def collect(*, name: str, results: list[str], ingests: list[dict], roots: dict[str, str], config: dict,
            workflow_dir: Path, trajectories: bool, max_requests: int, git: dict) -> tuple[dict, set, dict]:
    """Everything that goes in (arcname -> bytes, before the secret scan), the folders, and a
    note of what was left out of the bundle and why. `roots` maps a root label to its folder."""
    entries: dict[str, bytes] = {}
    directories: set[str] = set()
    skipped: list[dict] = []
    source_map: dict[str, str] = {}
    secret_values: set[str] = set()
    for ingest in ingests:
        job = ingest["job"]
        root = roots[job["label"]]
        files, folders, missed = job_files(job, root, trajectories=trajectories, max_requests=max_requests)
        skipped += missed
        base = f"jobs/{job['id']}"
        directories.add(base)
        directories.update(f"{base}/{folder}" for folder in folders)
        for relpath, data in files:
            entries[f"{base}/{relpath}"] = data
            source_map[(Path(root) / job["relpath"] / relpath).as_posix()] = f"{base}/{relpath}"
            if relpath.endswith("/config.json"):
                try:
                    secret_values.update(secret_env_values(json.loads(data).get("agent_env")))
                except (ValueError, AttributeError):
                    pass
    for path in results:
        entries[path] = Path(path).read_bytes()
        if path.startswith("results/environment/images/"):
            entries[f"replay/environment/images/{Path(path).name}"] = entries[path]
    for relpath, data in code_files(workflow_dir):
        entries[f"workflow-code/{relpath}"] = data
    entries["config.yaml"] = yaml.safe_dump(rerun_config(config, sorted(roots)), sort_keys=True).encode()
    entries["environment/requirements.lock"] = pinned_environment().encode()
    info = {
        "name": name,
        "workflow": {"git": git, "code": "workflow-code/ holds the files that ran (the working tree)"},
        "python": platform.python_version(),
        "trajectories": "whole files" if trajectories else
        f"only the first {max_requests} requests, reduced to their sampling keys and served model",
        "not_bundled": sorted(skipped, key=lambda row: row["file"]),
        "rerun": "python -m benchreport verify <this archive>",
    }
    return entries, directories, {"info": info, "source_map": source_map, "secret_values": sorted(secret_values)}


def scan(entries: dict[str, bytes], secret_values: list[str]) -> tuple[dict, list[dict]]:
    """Redact every secret; return the new entries and one row per hit (file and kind only)."""
    clean, hits = {}, []
    for name, data in sorted(entries.items()):
        clean[name], kinds = redact(data, secret_values)
        hits += [{"file": name, "kind": kind} for kind in kinds]
    return clean, hits
