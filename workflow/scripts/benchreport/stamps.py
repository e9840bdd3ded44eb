"""The change stamps at parse time: which job folders exist, the stamp file each one's ingest
takes as input (discover.refresh_states), and which ingests the stamps make this run redo.

Pure of Snakemake, so that tests can drive it on real folders; workflow/rules/common.smk calls it
once per parse and hands the stamps to rule ingest.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from . import discover
from .files import write_whole

STATE_DIR = Path(".snakemake", "benchreport-state")
# checkpoint ingested's record: written once every ingest of the run has run
INGESTED_RECORD = "results/ingested.json"


def lineage_of(path: str) -> str:
    """The lineage record path of an output path (pattern) under results/."""
    return f"results/lineage/{path.removeprefix('results/')}.json"


def ingest_file(job_id: str, name: str) -> str:
    """An output of a job folder's ingest: trials, index, tasks or ledger."""
    return f"results/ingest/{job_id}/{name}.json"


def ingest_output(job_id: str) -> str:
    """The first output of a job folder's ingest (what its stamp is compared with)."""
    return ingest_file(job_id, "trials")


def recorded_sources(job: discover.JobFolder) -> dict[str, str]:
    """relpath -> sha256 of every file the job folder's last ingest read (its lineage record);
    {} when it never ran or its record cannot be read."""
    record = Path(lineage_of(ingest_output(job.job_id)))
    try:
        sources = json.loads(record.read_bytes())["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    prefix = (Path(job.root) / job.relpath).as_posix() + "/"
    return {source["path"][len(prefix) :]: source["sha256"] for source in sources if source["path"].startswith(prefix)}


def refresh_states(jobs: list[discover.JobFolder], max_requests: int, state_dir: Path = STATE_DIR):
    """(job id -> its stamp file, job id -> the record sizes of its attempt folders, which
    discover.duplicates compares)."""
    found = discover.refresh_states(jobs, max_requests, state_dir, recorded_sources)
    stamps = {job_id: stamp for job_id, (stamp, _) in found.items()}
    records = {job_id: records for job_id, (_, records) in found.items()}
    return stamps, records


def find_jobs(roots: list[str]) -> dict[str, discover.JobFolder]:
    """job id -> job folder under `roots`; ValueError (the message a user reads) when a root is
    missing or holds no job folder."""
    missing = [root for root in roots if not Path(root).is_dir()]
    if missing:
        raise ValueError(f"job_roots: these folders do not exist: {', '.join(missing)}")
    jobs = discover.find_job_folders(roots)
    if not jobs:
        raise ValueError(
            f"No BenchFlow job folder found under job_roots ({', '.join(roots)}): a job "
            "folder holds <task>__<8 hex> attempt folders with result.json or config.json."
        )
    return {job.job_id: job for job in jobs}


def stamp_is_newer(job_id: str, stamp: str | Path) -> bool:
    """Whether Snakemake's mtime check will re-run the job folder's ingest (no output yet counts)."""
    try:
        return os.stat(stamp).st_mtime_ns > os.stat(ingest_output(job_id)).st_mtime_ns
    except FileNotFoundError:
        return True


def ingests_due(stamps: dict[str, str | Path]) -> set[str]:
    """The job folders whose ingest the stamps alone make this run redo. A changed ingest code
    hash or --forcerun re-runs others too; they are not counted."""
    return {job_id for job_id, stamp in stamps.items() if stamp_is_newer(job_id, stamp)}


def ingest_threads(job: discover.JobFolder, due: set[str], cores: int, parallel_min_attempts: int) -> int:
    """Two cores for a large job folder due by its stamp when the stamps make this run ingest so
    few folders that cores would idle (an edited trial or a new folder: every later stage waits
    for it), else one, so that a cold run ingests as many folders at once as it has cores."""
    if job.job_id not in due or 2 * len(due) > cores:
        return 1
    try:
        entries = len(os.listdir(job.path))
    except OSError:
        return 1  # a folder that cannot be listed: its ingest says so, in one process
    return 2 if entries >= parallel_min_attempts else 1


def files_digest(paths: list, extra: str) -> str:
    """sha256 of the files' paths and bytes, and of `extra`: what a remembered value is keyed by."""
    digest = hashlib.sha256(extra.encode())
    for path in paths:
        data = Path(path).read_bytes()
        digest.update(f"\0{path}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def remembered(name: str, digest: str, compute, encode, decode, state_dir: Path = STATE_DIR):
    """compute() as the last parse that computed it for the same `digest` saved it (decode(saved)),
    else computed and saved as encode(value): the plan a parse derives from the ingests' index
    files, without decoding them (15 MB of JSON at 100 job folders of 1,000 trials, 0.11-0.14 s
    to decode against 0.012 s to hash) while they hold the same bytes."""
    path = state_dir / f"derived-{name}.json"
    try:
        saved = json.loads(path.read_bytes())
        if saved["digest"] == digest:
            return decode(saved["value"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # none yet, or not one of ours
        pass
    value = compute()
    state_dir.mkdir(parents=True, exist_ok=True)
    write_whole(path, json.dumps({"digest": digest, "value": encode(value)}))
    return value
