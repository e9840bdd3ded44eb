"""The coverage design at scale: the windowed bootstrap gives the full-length FFT's bounds, blocks
and threads bound memory and time without changing a number, the stats rule asks for the design
its headline needs, and the workflow computes one design per tries profile, which an edited
reward does not recompute."""

from __future__ import annotations

import json
import random
import shutil
import tracemalloc

import numpy as np
import pytest
from benchreport.compute import coverage_design, intervals, shapes
from benchreport.compute.stats import headline_interval, setting_stats, setting_trials
from benchreport.read.discover import find_job_folders
from benchreport.read.ingest import ingest_job, settings_index
from conftest import EXAMPLE

CELLS = [(rate, rho) for rate in (0.1, 0.3, 0.5, 0.7, 0.9) for rho in (0.1, 0.5, 0.9)]


def simulated(tasks, tries, simulations, seed=7):
    """Runs of every grid cell, stacked: the shapes the grid meets, lattice-like ones included."""
    rng = np.random.default_rng(seed)
    return np.vstack(
        [
            coverage_design.draw_passes(rng, "beta-binomial", rho, rate, np.full(tasks, tries), simulations)
            for rate, rho in CELLS
        ]
    )


def assert_same_bounds(first, second):
    assert first.keys() == second.keys()
    for name in first:
        for a, b in zip(first[name], second[name]):
            np.testing.assert_array_equal(a, b, err_msg=name)


# --- the windowed bootstrap ---


@pytest.mark.parametrize(
    "tasks, tries, simulations",
    [
        (1000, 25, 12),  # the 100 x 1,000 benchmark's shape: window ~1/4 of the totals
        (1000, 5, 20),
        (400, 10, 20),
        (300, 3, 40),
        # small shapes, where the window covers every total and few frequencies can be dropped
        (40, 25, 20),
        (12, 5, 60),
        (3, 3, 60),
    ],
)
def test_windowed_bounds_equal_the_full_length_ones_run_by_run(tasks, tries, simulations):
    """Both compute the exact bootstrap distribution; they differ by ~1e-13 in the cdf, well
    inside the 1e-12 tolerance, so every run's bounds (lattice points) come out equal."""
    passes = simulated(tasks, tries, simulations)
    full = coverage_design.batch_intervals(passes, tries, bootstrap="full")
    windowed = coverage_design.batch_intervals(passes, tries, bootstrap="windowed")
    assert_same_bounds(full, windowed)
    # the comparison means something: the bootstrap bounds are defined for most runs
    assert np.isfinite(windowed["bootstrap-BCa over tasks"][0]).mean() > 0.5


@pytest.mark.parametrize(
    "tasks, tries, rate", [(200, 50, 0.004), (200, 50, 0.5), (40, 7, 0.97), (12, 3, 0.3), (1, 4, 0.5)]
)
def test_the_full_distribution_over_the_totals_a_run_can_reach_gives_the_full_length_bounds(tasks, tries, rate):
    """`_full_blocks` convolves each run's outcomes over n·lo … n·hi only (lo, hi: its lowest and
    highest task outcome); read back at their offset, the bounds are those of the full-length FFT
    over 0 … n·K, run by run (every block size, edge means where runs show few outcomes)."""
    rng = np.random.default_rng(tasks + tries)
    passes = np.vstack(
        [
            coverage_design.draw_passes(rng, "beta-binomial", rho, rate, np.full(tasks, tries), 40)
            for rho in (0.0, 0.2, 0.9)
        ]
    )
    counts = coverage_design._outcome_counts(passes, tries)
    totals = passes.sum(axis=1)
    acceleration = intervals.bootstrap_acceleration(passes / tries)
    full = coverage_design._read_full(coverage_design._full_pmf(counts, tasks, tries), totals, acceleration, 0.95)
    found = {name: (np.full(len(passes), np.nan), np.full(len(passes), np.nan)) for name in full}
    spans = set()
    for runs, pmf, offset in coverage_design._full_blocks(counts, tasks, tries):
        spans.add(pmf.shape[1])
        for name, sides in coverage_design._read_full(pmf, totals[runs] - offset, acceleration[runs], 0.95).items():
            for column, side in zip(found[name], sides):
                column[runs] = side + offset
    assert_same_bounds(full, found)
    assert min(spans) < tasks * tries + 1 or tasks == 1  # the shorter lengths were used


def test_levels_near_0_or_1_are_read_off_the_full_distribution(monkeypatch):
    """With a margin above 2.5%, every percentile level counts as extreme: all runs are redone
    full-length, and the bounds are the same."""
    passes = simulated(300, 5, 8)
    expected = coverage_design.batch_intervals(passes, 5, bootstrap="full")
    redone = []
    full_blocks = coverage_design._full_blocks

    def spy(counts, tasks, tries):
        redone.append(len(counts))
        return full_blocks(counts, tasks, tries)

    monkeypatch.setattr(coverage_design, "LEVEL_MARGIN", 0.03)
    monkeypatch.setattr(coverage_design, "_full_blocks", spy)
    assert_same_bounds(expected, coverage_design.batch_intervals(passes, 5, bootstrap="windowed"))
    assert sum(redone) == len(passes)


@pytest.mark.parametrize("tasks, tries, bootstrap", [(12, 3, "full"), (60, 10, "full"), (300, 5, "windowed")])
def test_blocks_of_runs_change_no_number(monkeypatch, tasks, tries, bootstrap):
    passes = simulated(tasks, tries, 30)
    whole = coverage_design.batch_intervals(passes, tries, bootstrap=bootstrap)
    monkeypatch.setattr(coverage_design, "BLOCK_ELEMENTS", 1 << 11)
    assert_same_bounds(whole, coverage_design.batch_intervals(passes, tries, bootstrap=bootstrap))


@pytest.mark.parametrize("bootstrap", ["full", "windowed"])
def test_memory_stays_bounded_at_a_thousand_tasks_by_25_tries(bootstrap):
    """1,000 runs at 1,000 x 25: computed all at once, the full-length spectra alone are
    1,000 x 16,385 complex numbers (262 MB), with the pmf and cdf another 500 MB; in blocks the
    whole call stays under 150 MB (numpy reports its allocations to tracemalloc)."""
    passes = coverage_design.draw_passes(np.random.default_rng(3), "beta-binomial", 0.5, 0.5, np.full(1000, 25), 1000)
    tracemalloc.start()
    try:
        coverage_design.batch_intervals(passes, 25, bootstrap=bootstrap)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 150 * 2**20, f"{peak / 2**20:.0f} MB"


def test_the_design_says_which_bootstrap_ran_and_both_give_the_same_design():
    small = coverage_design.coverage_design(((3, 12),), seed=1, simulations=200)
    assert small["bootstrap"] == coverage_design.EXACT  # unchanged below WINDOWED_MIN_TASKS
    assert coverage_design.coverage_design(((3, 12),), seed=1, simulations=200, bootstrap="full") == small
    windowed = coverage_design.coverage_design(((5, 300),), seed=5, simulations=500)
    assert windowed["bootstrap"].startswith(coverage_design.EXACT) and "window" in windowed["bootstrap"]
    full = coverage_design.coverage_design(((5, 300),), seed=5, simulations=500, bootstrap="full")
    assert full["bootstrap"] == coverage_design.EXACT
    assert {**windowed, "bootstrap": None} == {**full, "bootstrap": None}
    assert windowed["methods"]["bootstrap-percentile over tasks"]["evaluation"].startswith("simulated")


def test_threads_change_no_number():
    arguments = {"seed": 3, "simulations": 1000}
    one = coverage_design.coverage_design(((3, 60),), **arguments)  # 39,711 distinct runs: simulated
    assert coverage_design.coverage_design(((3, 60),), workers=3, **arguments) == one
    passes = simulated(60, 3, 20)
    assert_same_bounds(
        coverage_design.batch_intervals(passes, 3), coverage_design.batch_intervals(passes, 3, workers=3)
    )


def test_the_auto_choice_follows_the_documented_thresholds():
    assert not coverage_design._windowed("auto", coverage_design.WINDOWED_MIN_TASKS - 1, 25)
    assert not coverage_design._windowed("auto", 1000, 1)  # 1,001 totals: the full FFT is cheap
    assert coverage_design._windowed("auto", coverage_design.WINDOWED_MIN_TASKS, 5)
    with pytest.raises(ValueError):
        coverage_design.batch_intervals(np.zeros((2, 3), dtype=int), 2, bootstrap="fast")


# --- which grid a setting needs ---


@pytest.fixture(scope="module")
def example_trials():
    """Every trial of the example job folders (agents, oracle and nop controls), as ingested."""
    jobs = find_job_folders([str(EXAMPLE / name) for name in ("benchflow-real-jobs", "benchflow-samples", "generated")])
    return [trial for job in jobs for trial in ingest_job(job, 20, ["nop-acp", "nop-acp-tc"])["trials"]]


class AskedFor(Exception):
    pass


def stats_shape(setting, trials, policy):
    """The shape setting_stats asks its grid for (None when no task was scored)."""

    def grid_for(profile):
        raise AskedFor(profile)

    params = {
        "seed": 1,
        "resamples": 200,
        "confidence": 0.95,
        "min_trials_per_task": 3,
        "coverage_simulations": 200,
        "controls": policy,
    }
    try:
        setting_stats(setting_trials(setting, trials, params["controls"]), trials, params, grid_for)
    except AskedFor as asked:
        return asked.args[0]
    return None


POLICIES = [
    {"on_failure": failure, "on_unverified": unverified}
    for failure in ("exclude", "keep")
    for unverified in ("exclude", "keep")
]


@pytest.mark.parametrize("seed", range(6))
def test_the_planned_shape_is_the_one_setting_stats_needs(example_trials, seed):
    """Outcomes shuffled, some trials interrupted, task versions (digests) changed on some
    trials, controls passing, failing and unverified, every policy: the shape the workflow plans
    from the ingests' counts (one index per job folder, as ingest writes them) is the one
    setting_stats computes from the trials."""
    rng = random.Random(seed)
    trials = [dict(trial) for trial in example_trials]
    for trial in trials:
        trial["outcome"] = rng.choice(
            ["passed", "passed", "failed", "errored", "unscored", "interrupted" if seed % 2 else "failed"]
        )
        if rng.random() < 0.15:
            trial["task_digest"] = rng.choice([None, "sha256:other", trial["task_digest"]])
    if seed == 5:  # every trial of one setting interrupted: no task scored, no grid
        first = trials[0]["setting"]
        for trial in trials:
            if trial["setting"] == first:
                trial["outcome"] = "interrupted"
    indexes = [
        {"settings": settings_index([trial for trial in trials if trial["job"] == job])}
        for job in sorted({trial["job"] for trial in trials})
    ]
    found = set()
    for setting in sorted({trial["setting"] for trial in trials}):
        for policy in POLICIES:
            expected = stats_shape(setting, trials, policy)
            assert shapes.planned_profile(setting, indexes, policy) == expected, (setting, policy)
            found.add(expected)
    assert len(found) > 3  # the cases differ


def test_a_design_of_another_shape_or_seed_is_refused():
    tasks = [{"trials": 3, "passed": 1}, {"trials": 3, "passed": 2}]
    params = {"seed": 1, "coverage_simulations": 200, "confidence": 0.95}
    good = coverage_design.coverage_design(((3, 2),), seed=1, simulations=200)
    methods = {name: {"low": 0.1, "high": 0.9} for name in intervals.METHODS}
    headline = headline_interval(tasks, methods, params, lambda profile: good)
    assert headline["coverage"]["n_tasks"] == 2 and headline["coverage"]["tries_profile"] == [[3, 2]]
    for wrong in (
        coverage_design.coverage_design(((4, 2),), seed=1, simulations=200),
        coverage_design.coverage_design(((2, 1), (3, 1)), seed=1, simulations=200),
        good | {"seed": 2},
        good | {"design_version": 1},
    ):
        with pytest.raises(ValueError, match="coverage design"):
            headline_interval(tasks, {}, params, lambda profile, wrong=wrong: wrong)


def test_settings_with_the_same_tries_profile_share_one_design_file():
    def trials(setting, tries_per_task):
        return [
            {
                "setting": setting,
                "setting_key": {"control": None},
                "task": f"t{task}",
                "task_digest": None,
                "outcome": "failed",
            }
            for task, tries in enumerate(tries_per_task)
            for _ in range(tries)
        ]

    index = {"settings": settings_index(trials("a", [3, 4, 3]) + trials("b", [4, 3, 3]) + trials("c", [3, 3, 3]))}
    policy = {"on_failure": "exclude", "on_unverified": "keep"}
    files = {name: shapes.coverage_file(shapes.planned_profile(name, [index], policy)) for name in "abc"}
    assert files == {
        "a": "results/coverage/2x3+1x4.json",
        "b": "results/coverage/2x3+1x4.json",
        "c": "results/coverage/3x3.json",
    }


# --- the workflow ---


@pytest.mark.slow
def test_one_grid_per_shape_which_an_edited_reward_does_not_recompute(workflow):
    roots = []
    for name in ("benchflow-real-jobs", "benchflow-samples", "generated"):
        shutil.copytree(EXAMPLE / name, workflow.path / "jobs" / name)
        roots.append(f"jobs/{name}")
    # every setting's stats.json and the designs they read; nothing run-level reads a design
    workflow.run("numbers", roots=roots)
    stats = {
        path.parent.name: json.loads(path.read_text()) for path in (workflow.results / "settings").glob("*/stats.json")
    }
    wanted = {
        setting: shapes.shape_name([tuple(group) for group in data["headline"]["coverage"]["tries_profile"]]) + ".json"
        for setting, data in stats.items()
    }
    grids = {path.name: path.stat().st_mtime_ns for path in (workflow.results / "coverage").glob("*.json")}
    assert set(grids) == set(wanted.values())
    assert "5x3+6x4.json" in grids  # unequal tries (gemini): measured at the run's own profile
    for setting, grid in wanted.items():
        record = json.loads((workflow.results / "lineage" / "settings" / setting / "stats.json.json").read_text())
        assert f"results/coverage/{grid}" in [entry["path"] for entry in record["inputs"]]

    codex = next(setting for setting in stats if setting.startswith("codex-acp"))
    result = next((workflow.path / "jobs/generated/codex-gpt-5.1-x3/codex-gpt-5.1/trial-01").glob("*/*/result.json"))
    data = json.loads(result.read_text())
    data["rewards"] = {"reward": 0.0 if (data.get("rewards") or {}).get("reward") == 1.0 else 1.0}
    result.write_text(json.dumps(data, indent=2))
    run = workflow.run("numbers", roots=roots)
    assert "coverage_design:" not in run.stdout + run.stderr
    assert {path.name: path.stat().st_mtime_ns for path in (workflow.results / "coverage").glob("*.json")} == grids
    edited = json.loads((workflow.results / "settings" / codex / "stats.json").read_text())
    assert edited["counts"]["passed"] != stats[codex]["counts"]["passed"]
