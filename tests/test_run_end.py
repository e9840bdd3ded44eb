"""What a run leaves a new user with: its last lines say where the results are, and what
`snakemake --report report.html` writes is not taken for a file of the repository."""

from __future__ import annotations

import subprocess
import sys

from conftest import REAL_JOB_ROOTS, REPO

# the shared run's config points at no Docker daemon: its images are not inspected
NOT_INSPECTED = (
    "benchreport: 6 task images were not inspected (daemon unavailable or image missing); to inspect "
    "again: snakemake --cores 4 --forcerun inspect_image"
)


def where_results_are(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    return lines[lines.index("benchreport: the results are in") :]


def test_a_run_ends_with_where_its_results_are(real_run):
    assert where_results_are(real_run.first_run.stderr) == [
        "benchreport: the results are in",
        "  results/index.md",
        "  results/report.html",
        NOT_INSPECTED,
    ], real_run.first_run.stderr[-2000:]


def test_the_paths_are_relative_to_the_folder_the_run_started_in(real_run_copy):
    """snakemake --directory: the paths lead from where the command was typed."""
    roots = ",".join(f'"{root}"' for root in REAL_JOB_ROOTS)
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "2", "--directory", "wf", "--snakefile", "wf/Snakefile"]
        + ["--forcerun", "run_report", "--config", f"job_roots=[{roots}]"],
        cwd=real_run_copy.path.parent,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr
    assert where_results_are(done.stderr) == [
        "benchreport: the results are in",
        "  wf/results/index.md",
        "  wf/results/report.html",
        NOT_INSPECTED,
    ], done.stderr[-2000:]


def test_snakemakes_report_file_is_ignored_by_git():
    done = subprocess.run(["git", "check-ignore", "--no-index", "report.html"], cwd=REPO, capture_output=True)
    assert done.returncode == 0


def test_the_last_lines_count_the_images_not_inspected_in_words():
    from benchreport.present.sentences import results_are_in

    assert results_are_in(["results/index.md"], 0, "again") == "benchreport: the results are in\n  results/index.md"
    one = results_are_in([], 1, "snakemake --forcerun inspect_image").splitlines()[-1]
    assert one.startswith("benchreport: 1 task image was not inspected") and one.endswith(
        "to inspect again: snakemake --forcerun inspect_image"
    )
    assert "1,200 task images were not inspected" in results_are_in([], 1200, "again")
