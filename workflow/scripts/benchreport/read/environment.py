"""The environment a task ran in, as built: resolve its image reference and inspect it.

A task digest covers the task's files, not what apt-get or pip installed when its image was
built, so the report names each task's image by Id, repo digest and platform. BenchFlow removes
its `bf__<task>` images after every trial and records no image id, so the reference comes from
config, from the task definition (`docker_image`), from a `bf__<task>` image still present, or,
only when config asks, from building the task's environment/ now (labelled as such).
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tomllib
from pathlib import Path

import yaml

from ..pipeline.outputs import dump_json
from . import secrets

INSPECT_FIELDS = ("Id", "RepoTags", "RepoDigests", "Os", "Architecture", "Variant", "Created")
REBUILT = "rebuilt now, not the image that ran"
# What leaves an image not inspected; a record, whatever it says, is kept until REFRESH.
NOT_INSPECTED = ("daemon unavailable", "image missing")
REFRESH = "snakemake --cores 4 --forcerun inspect_image"


def sanitise_image_name(name: str) -> str:
    """BenchFlow's `_sanitize_docker_image_name`: lowercase, [a-z0-9._-], alphanumeric first."""
    name = re.sub(r"[^a-z0-9._-]", "-", name.lower())
    return name if name[:1].isalnum() else f"0{name}"


def image_slug(reference: str) -> str:
    """A file name for an image reference (unique: a hash of the full reference is appended)."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", reference).strip("_")[:60]
    return f"{readable}-{hashlib.sha256(reference.encode()).hexdigest()[:8]}"


def _front_matter(text: str):
    """The TOML (+++) or YAML (---) front matter of a task.md, else None."""
    for fence, parse in (("+++", tomllib.loads), ("---", yaml.safe_load)):
        if text.startswith(fence + "\n"):
            end = text.find("\n" + fence, len(fence))
            if end > 0:
                return parse(text[len(fence) + 1 : end])
    return None


def prebuilt_image(task_dir: Path) -> str | None:
    """`docker_image` (or `image`) from task.toml's [environment] or task.md's front matter."""
    definition = None
    try:
        if (task_dir / "task.toml").is_file():
            definition = tomllib.loads((task_dir / "task.toml").read_text(encoding="utf-8"))
        elif (task_dir / "task.md").is_file():
            definition = _front_matter((task_dir / "task.md").read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError):
        return None
    if not isinstance(definition, dict):
        return None
    for table in (definition.get("environment"), definition):
        if isinstance(table, dict):
            for key in ("docker_image", "image"):
                if isinstance(table.get(key), str) and table[key].strip():
                    return table[key].strip()
    return None


def find_task_dir(task: str, task_paths: list[str], tasks_dirs: list[str]) -> Path | None:
    for tasks_dir in tasks_dirs:
        for name in [*task_paths, task]:
            candidate = Path(tasks_dir) / name
            if (candidate / "task.toml").is_file() or (candidate / "task.md").is_file():
                return candidate
    return None


def resolve_image(
    task: str, task_paths: list[str], *, images: dict, tasks_dirs: list[str], build: bool, digest: str | None
) -> dict:
    """The image reference a task ran in, and where that reference came from."""
    if task in images:
        return {"reference": images[task], "source": "config", "build_context": None}
    task_dir = find_task_dir(task, task_paths, tasks_dirs)
    if task_dir is not None:
        prebuilt = prebuilt_image(task_dir)
        if prebuilt:
            return {"reference": prebuilt, "source": f"task definition ({task_dir.as_posix()})", "build_context": None}
    context = None
    if build and task_dir is not None and (task_dir / "environment" / "Dockerfile").is_file():
        context = (task_dir / "environment").as_posix()
    return {
        "reference": sanitise_image_name(f"bf__{task}"),
        "source": "BenchFlow's built name (present only if the image was kept)",
        "build_context": context,
        "build_tag": f"benchreport/{sanitise_image_name(task)}:{(digest or 'nodigest').removeprefix('sha256:')[:12]}",
    }


def _run(command: list[str], env: dict, timeout: float) -> tuple[int | None, str, str]:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except FileNotFoundError:
        return None, "", f"{command[0]}: the Docker CLI was not found"
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout:g} s"
    return done.returncode, done.stdout, done.stderr


def _failure(stderr: str, code) -> tuple[str, str]:
    text = " ".join(stderr.split())
    if "Cannot connect to the Docker daemon" in text or "daemon running" in text or "connect: no such file" in text:
        return "daemon unavailable", text
    if "No such image" in text or "No such object" in text:
        return "image missing", text
    if code is None:
        return "docker not run", text
    return f"docker exited {code}", text


def inspect_image(
    reference: str,
    *,
    docker: str,
    env: dict,
    timeout: float,
    build_context: str | None = None,
    build_tag: str | None = None,
) -> dict:
    """`docker image inspect` of one reference, as a record that never raises.

    status is "inspected", "rebuilt", "daemon unavailable", "image missing", "docker exited N",
    "unparsable output" or "docker not run"; `reason` says why in the daemon's words.
    """
    record = {
        "reference": reference,
        "status": None,
        "reason": None,
        "inspected_reference": reference,
        "refresh": REFRESH,
    }
    code, out, err = _run([docker, "image", "inspect", reference], env, timeout)
    if code != 0 and build_context and build_tag and _failure(err, code)[0] == "image missing":
        built, _, build_err = _run([docker, "build", "-q", "-t", build_tag, build_context], env, timeout)
        if built != 0:
            status, reason = _failure(build_err, built)
            return record | {"status": f"build failed ({status})", "reason": reason}
        record["inspected_reference"] = build_tag
        record["note"] = REBUILT
        code, out, err = _run([docker, "image", "inspect", build_tag], env, timeout)
    if code != 0:
        status, reason = _failure(err, code)
        return record | {"status": status, "reason": reason}
    try:
        (data,) = json.loads(out)
        image = {field: data.get(field) for field in INSPECT_FIELDS}
        image["RootFS"] = data["RootFS"]["Layers"]
    except (ValueError, KeyError, TypeError):
        return record | {"status": "unparsable output", "reason": out[:200]}
    code, out, _ = _run([docker, "version", "-f", "{{json .Server.Version}}"], env, timeout)
    daemon = json.loads(out) if code == 0 and out.strip().startswith('"') else None
    return record | {
        "status": "rebuilt" if record.get("note") else "inspected",
        "image": image,
        "platform": "/".join(part for part in (image["Os"], image["Architecture"], image.get("Variant")) if part),
        "daemon_version": daemon,
    }


def redacted_record(record: dict) -> dict:
    """The record with every secret in its file's text redacted, as the bundle redacts that file:
    Docker's words repeat what it was given (an image name made from a task's name, a
    registry's credentials), and an output rendered from the record must show what the re-run
    of a bundle, rendering the bundle's redacted copy, shows."""
    return json.loads(secrets.redact_text(dump_json(record))[0])


def repo_digest_text(record: dict) -> str:
    digests = (record.get("image") or {}).get("RepoDigests") or []
    return ", ".join(digests) if digests else "none: built locally, never pushed"


def replay_record(reference: str, path: Path) -> dict:
    """An inspection record kept in a bundle, read instead of asking a daemon."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {
            "reference": reference,
            "status": "not in the bundle",
            "reason": f"no record at {path.as_posix()}",
            "inspected_reference": reference,
        }
