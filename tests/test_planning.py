"""What the workflow plans once ingest has run (benchreport.pipeline.planning), on real BenchFlow job
folders ingested here, without Snakemake."""

from __future__ import annotations

import pytest
from benchreport.pipeline import planning
from benchreport.read import discover, environment, ingest
from conftest import EXAMPLE

ROOT = EXAMPLE / "benchflow-real-jobs"
NO_IMAGES = {"images": {}, "tasks_dirs": [], "build_missing": False}


@pytest.fixture(scope="module")
def ingests():
    """Every job folder of the real example, ingested as rule ingest does."""
    return [ingest.ingest_job(job) for job in discover.find_job_folders([str(ROOT)])]


def test_every_task_of_every_job_folder_gets_one_image(ingests):
    images = planning.task_images([found["tasks"] for found in ingests], NO_IMAGES)
    tasks = {trial["task"] for found in ingests for trial in found["trials"]}
    assert set(images) == tasks and len(tasks) > 1
    assert {resolved["reference"] for resolved in images.values()} == {f"bf__{task}" for task in tasks}


def test_a_configured_image_wins_and_names_its_record(ingests):
    task = ingests[0]["trials"][0]["task"]
    config = NO_IMAGES | {"images": {task: "registry.invalid/team/image:1"}}
    images = planning.task_images([found["tasks"] for found in ingests], config)
    assert images[task]["reference"] == "registry.invalid/team/image:1" and images[task]["source"] == "config"
    slug = environment.image_slug("registry.invalid/team/image:1")
    assert planning.images_by_slug(images)[slug] is images[task]
    assert planning.report_images(images, {task}) == [f"results/environment/images/{slug}.json"]


def test_the_report_environment_lists_each_task_with_the_digests_its_trials_record(ingests):
    tasks_by_job = [found["tasks"] for found in ingests]
    images = planning.task_images(tasks_by_job, NO_IMAGES)
    digests = planning.task_digests(tasks_by_job)
    rows = planning.report_environment(images, set(images), digests)
    assert [row["task"] for row in rows] == sorted(images)
    recorded = {}
    for found in ingests:
        for trial in found["trials"]:
            recorded.setdefault(trial["task"], set()).update([trial["task_digest"]] if trial["task_digest"] else [])
    assert {row["task"]: row["task_digests"] for row in rows} == {task: sorted(d) for task, d in recorded.items()}
    assert all(row["record"] == planning.image_record(images[row["task"]]) for row in rows)


def test_only_failed_records_are_asked_about_again(ingests):
    images = planning.task_images([found["tasks"] for found in ingests], NO_IMAGES)
    first, second, *rest = sorted(images)
    records = {
        planning.image_record(images[first]): {"reference": f"bf__{first}", "status": "daemon unavailable"},
        planning.image_record(images[second]): {"reference": f"bf__{second}", "status": "inspected"},
    }
    assert planning.failed_references(images, records.get) == [f"bf__{first}"]


def test_the_job_params_name_the_folder_but_not_where_it_is():
    [job, *_] = discover.find_job_folders([str(ROOT)])
    params = planning.job_params(job)
    assert params["job_id"] == job.job_id and "root" not in params and "relpath" not in params
