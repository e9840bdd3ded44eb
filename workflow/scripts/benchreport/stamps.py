"""The change stamps at parse time: which job folders exist, the stamp file each one's ingest
takes as input (discover.refresh_states), and which ingests the stamps make this run redo.

Pure of Snakemake, so that tests can drive it on real folders; workflow/rules/common.smk calls it
once per parse and hands the stamps to rule ingest.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

from . import discover
from .files import write_whole
from .lineage import ingest_file

STATE_DIR = Path(".snakemake", "benchreport-state")
# checkpoint ingested's record: written once every ingest of the run has run
INGESTED_RECORD = "results/ingested.json"
BATCHES = "batches.json"  # under STATE_DIR: job id -> the batch the last parse planned for it


def lineage_of(path: str) -> str:
    """The lineage record path of an output path (pattern) under results/."""
    return f"results/lineage/{path.removeprefix('results/')}.json"


# A job of rule ingest reads one batch of job folders: the tries of one --matrix cell together up
# to this many attempt folders; a folder of this many or more, or one outside a matrix, alone.
# Each job costs ~0.15 s of CPU besides its work (Snakemake's records of its outputs, a shell,
# the fork server's client and copy) against ~0.5 ms an attempt folder: at 200 folders of 50
# trials, a job each spent 29 of the run's 41 s of CPU on 200 ingests. An edited trial re-reads
# its batch (about a second at most).
BATCH_ATTEMPTS = 1000


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
    batches, group, size = {}, None, 0
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


def refresh_states(jobs: list[discover.JobFolder], max_requests: int, state_dir: Path = STATE_DIR):
    """(job id -> its stamp file, job id -> the records of its attempt folders, which
    discover.duplicates compares: discover.attempt_records). A folder's last ingest is that of the batch the last parse
    planned for it (plan_batches)."""
    planned = _planned_batches(state_dir)
    # a batch's record is read once, not once per folder of it whose files were touched
    sources_of = functools.cache(batch_sources)
    found = discover.refresh_states(
        jobs,
        max_requests,
        state_dir,
        lambda job: recorded_sources(job, planned.get(job.job_id, job.job_id), sources_of),
    )
    stamps = {job_id: stamp for job_id, (stamp, _) in found.items()}
    records = {job_id: records for job_id, (_, records) in found.items()}
    return stamps, records


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
) -> dict[str, list[str]]:
    """ingest_batches of the job folders, by the attempt folders refresh_states found in each,
    saved beside the plans of other folders for the next parse's refresh_states. A folder whose
    batch is not the one the last parse planned has its stamp touched: the record its stamp was
    last compared with is another batch's, so the batch it is in now reads it again."""
    batches = ingest_batches(jobs, {job_id: len(records.get(job_id, ())) for job_id in jobs})
    planned = {job_id: batch for batch, members in batches.items() for job_id in members}
    saved = _planned_batches(state_dir)
    moved = [job_id for job_id, batch in planned.items() if saved.get(job_id) != batch]
    for job_id in moved:
        os.utime(stamps[job_id])
    if moved:
        state_dir.mkdir(parents=True, exist_ok=True)
        write_whole(state_dir / BATCHES, json.dumps(saved | planned, sort_keys=True))
    return batches


def find_jobs(roots: list[str]) -> dict[str, discover.JobFolder]:
    """job id -> job folder under `roots`; ValueError (the message a user reads) when a root is
    missing, is or lies inside a trial folder, or no root holds a job folder."""
    missing = [root for root in roots if not Path(root).is_dir()]
    if missing:
        raise ValueError(f"job_roots: these folders do not exist: {', '.join(missing)}")
    jobs = discover.find_job_folders(roots)
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
        named = bool(discover.TRIAL_NAME.match(Path(os.path.abspath(folder)).name))
        markers = discover.TRIAL_MARKERS if named else ("result.json", "solver.json") if folder == root else ()
        held = next((marker for marker in markers if (folder / marker).is_file()), None)
        if held and (named or not holds_jobs):
            return folder, f"it holds {held}"
        if named and not holds_jobs:
            return folder, "its name is <task>__<8 hex>, as BenchFlow names a trial folder"
    return None


def stamp_is_newer(batch: str, stamp: str | Path) -> bool:
    """Whether Snakemake's mtime check will re-run the batch's ingest for a member's stamp (no
    output yet counts)."""
    try:
        return os.stat(stamp).st_mtime_ns > os.stat(ingest_output(batch)).st_mtime_ns
    except FileNotFoundError:
        return True


def ingests_due(batches: dict[str, list[str]], stamps: dict[str, str | Path]) -> set[str]:
    """The batches whose ingest the stamps of their job folders alone make this run redo. A
    changed ingest code hash, a batch's new members or --forcerun re-run others too; they are
    not counted."""
    return {batch for batch, members in batches.items() if any(stamp_is_newer(batch, stamps[job]) for job in members)}


def ingest_threads(
    batch: str, members: list[discover.JobFolder], due: set[str], cores: int, parallel_min_attempts: int
) -> int:
    """Two cores for a batch of one large job folder due by its stamp when the stamps make this
    run ingest so few batches that cores would idle (an edited trial or a new folder: every
    later stage waits for it), else one, so that a cold run ingests as many batches at once as
    it has cores."""
    if batch not in due or 2 * len(due) > cores or len(members) > 1:
        return 1
    (job,) = members
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
