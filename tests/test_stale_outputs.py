"""A job folder removed and the workflow run again: what results/ held only for it goes, the
per-setting folders, the coverage design at a tries profile no setting has now and the
inspection records of images no setting's tasks ran in, with their lineage records."""

from __future__ import annotations

import json
import shutil

from conftest import REAL_JOB_ROOTS


def outputs(results, folder: str) -> set[str]:
    return {path.relative_to(results).as_posix() for path in (results / folder).glob("*.json")}


def read_by_reports(results, folder: str) -> set[str]:
    """The files of `folder` that the lineage records of the settings' outputs name as inputs."""
    found = set()
    for record in (results / "lineage").glob("*/*/*.json"):
        if record.parent.parent.name in ("settings", "reports"):
            inputs = json.loads(record.read_text())["inputs"]
            found.update(entry["path"].removeprefix("results/") for entry in inputs)
    return {path for path in found if path.startswith(f"{folder}/")}


def test_a_removed_job_root_leaves_no_coverage_or_image_record_behind(real_run_copy):
    results = real_run_copy.results
    kept_root, removed_root = REAL_JOB_ROOTS
    before = {folder: outputs(results, folder) for folder in ("coverage", "environment/images")}
    shutil.rmtree(real_run_copy.path / removed_root)
    # the records in question are read by the settings' reports (target reports) alone
    done = real_run_copy.run("reports", roots=[kept_root])
    assert "Removed " in done.stderr
    for folder, found in before.items():
        left = outputs(results, folder)
        assert left == read_by_reports(results, folder), folder
        assert left < found, f"{folder}: the removed root had none of its own"
        assert {path.name for path in (results / "lineage" / folder).iterdir()} == {
            f"{path.rsplit('/', 1)[1]}.json" for path in left
        }
