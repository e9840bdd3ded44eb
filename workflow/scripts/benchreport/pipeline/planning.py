"""What the workflow plans once the ingests have run: each task's image and the record that
inspects it, what a setting's report reads, and the run-level outputs. Pure functions over the
ingests' index files (tasks.json) and the config, so that tests need no Snakemake;
workflow/rules/common.smk reads the files once checkpoint `ingested` has run, and caches the
answers.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from ..read import discover, environment


def job_params(job: discover.JobFolder) -> dict:
    """The job folder as outputs name it; where it is, the ingest reads beside its stamp."""
    return {key: value for key, value in dataclasses.asdict(job).items() if key not in ("root", "relpath")}


def task_images(tasks_by_job: list[dict], environment_config: dict) -> dict[str, dict]:
    """task -> where its image reference came from (environment.resolve_image), from the
    `tasks` of every job folder's tasks.json (task -> its paths and digests)."""
    tasks: dict[str, dict[str, set[str]]] = {}
    for job_tasks in tasks_by_job:
        for task, seen in job_tasks.items():
            entry = tasks.setdefault(task, {"paths": set(), "digests": set()})
            entry["paths"].update(seen["paths"])
            entry["digests"].update(seen["digests"])
    return {
        task: environment.resolve_image(
            task,
            sorted(seen["paths"]),
            images=environment_config["images"],
            tasks_dirs=environment_config["tasks_dirs"],
            build=environment_config["build_missing"],
            digest=max(seen["digests"], default=None),
        )
        for task, seen in sorted(tasks.items())
    }


def images_by_slug(images: dict[str, dict]) -> dict[str, dict]:
    """image slug (the wildcard of rule inspect_image) -> the resolution of the image it names."""
    return {environment.image_slug(resolved["reference"]): resolved for resolved in images.values()}


def image_record(resolved: dict) -> str:
    """The inspection record of a resolved image."""
    return f"results/environment/images/{environment.image_slug(resolved['reference'])}.json"


def failed_references(images: dict[str, dict], read_record) -> list[str]:
    """The image references whose kept record says it was not inspected
    (environment.NOT_INSPECTED); `read_record(path)` gives a record or None."""
    failed = set()
    for resolved in images.values():
        record = read_record(image_record(resolved))
        if record and record.get("status") in environment.NOT_INSPECTED:
            failed.add(record["reference"])
    return sorted(failed)


def task_digests(tasks_by_job: list[dict]) -> dict[str, set]:
    """task -> the task digests its trials record, over the given job folders' tasks.json."""
    digests: dict[str, set] = {}
    for job_tasks in tasks_by_job:
        for task, seen in job_tasks.items():
            digests.setdefault(task, set()).update(seen["digests"])
    return digests


def report_images(images: dict[str, dict], tasks: set[str]) -> list[str]:
    """The inspection records a setting's report reads: one per image its tasks ran in."""
    return sorted({image_record(images[task]) for task in tasks})


def report_environment(images: dict[str, dict], tasks: set[str], digests: dict[str, set]) -> list[dict]:
    """Per task of a setting (every one, those its controls leave out too): its image
    resolution, the record that inspects it and the task digests its trials record."""
    return [
        images[task]
        | {"task": task, "record": image_record(images[task]), "task_digests": sorted(digests.get(task, ()))}
        for task in sorted(tasks)
    ]


INGEST_FILES = ("trials.json", "index.json", "tasks.json", "ledger.json")


# The folders under results/ of one output file per planned item: a coverage design per tries
# profile, an inspection record per task image.
PLANNED_FILE_FOLDERS = ("coverage", "environment/images")


def remove_stale_outputs(results: Path, settings: set[str], batches: set[str], planned_files: set[str]) -> list[str]:
    """Remove what results/ holds of settings, ingest batches and planned files no longer planned
    (a deleted or moved job folder, a setting whose trials are gone, batches made otherwise, a
    tries profile or a task image no setting has now), so that no output looks current that is
    not: results/reports/<setting>/ and results/settings/<setting>/, a batch's results/ingest
    files, a file of PLANNED_FILE_FOLDERS not among `planned_files` (paths under results/, as
    "coverage/10x3.json"), and their lineage records. Returns the paths removed, sorted."""
    removed = []
    for stage in ("reports", "settings"):
        for base in (results / stage, results / "lineage" / stage):
            for folder in sorted(base.iterdir() if base.is_dir() else []):
                if folder.is_dir() and not folder.is_symlink() and folder.name not in settings:
                    shutil.rmtree(folder)
                    removed.append(folder.as_posix())
    for stage in PLANNED_FILE_FOLDERS:
        for base, suffix in ((results / stage, ""), (results / "lineage" / stage, ".json")):
            for path in sorted(base.iterdir() if base.is_dir() else []):
                output = f"{stage}/{path.name.removesuffix(suffix)}"
                if path.is_file() and not path.is_symlink() and output not in planned_files:
                    path.unlink()
                    removed.append(path.as_posix())
    ingest = results / "ingest"
    for trials in sorted(ingest.rglob("trials.json") if ingest.is_dir() else []):
        batch = trials.parent.relative_to(ingest).as_posix()
        if batch in batches:
            continue
        for name in INGEST_FILES:
            for path in (trials.parent / name, results / "lineage" / "ingest" / batch / f"{name}.json"):
                if path.is_file():
                    path.unlink()
                    removed.append(path.as_posix())
        for folder in (trials.parent, results / "lineage" / "ingest" / batch):
            while (
                folder not in (ingest, results / "lineage" / "ingest") and folder.is_dir() and not any(folder.iterdir())
            ):
                folder.rmdir()
                folder = folder.parent
    return sorted(removed)
