"""What the workflow plans once the ingests have run: each task's image and the record that
inspects it, what a setting's report reads, and the run-level outputs. Pure functions over the
ingests' index files (tasks.json) and the config, so that tests need no Snakemake;
workflow/rules/common.smk reads the files once checkpoint `ingested` has run, and caches the
answers.
"""

from __future__ import annotations

import dataclasses

from . import discover, environment
from .stamps import INGESTED_RECORD

# what rule all asks for beyond the reports of each setting
RUN_OUTPUTS = (
    INGESTED_RECORD,
    "results/index.md",
    "results/exclusions.tsv",
    "results/comparisons/comparisons.md",
    "results/paper/settings.csv",
    "results/report.html",
    "results/trials.csv",
)


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


def compared_settings(settings: dict[str, dict]) -> list[str]:
    """The stats of every agent setting, what rule comparisons reads (controls are never compared)."""
    return [
        f"results/settings/{setting}/stats.json" for setting in sorted(settings) if not settings[setting]["control"]
    ]


def run_outputs(control_kinds: tuple[str, ...] = ()) -> list[str]:
    """The run-level outputs of rule all, and the manifests of the control runs it makes."""
    return [*RUN_OUTPUTS, *(f"results/controls/run-{kind}.json" for kind in control_kinds)]
