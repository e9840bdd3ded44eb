"""Coverage simulation, headline choice, paired comparison, pass@k / pass^k."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

from benchreport import coverage, intervals, paired, passk

# statistics.md's table: φ = 1 (ρ = 0.5), worst case over μ ∈ {0.3, 0.5, 0.8}.
TABLE_GRID = {"pass_rates": (0.3, 0.5, 0.8), "correlations": (0.5,), "simulations": 4000}


@pytest.fixture(scope="module")
def table():
    return {(n, k): coverage.coverage_grid(n, k, seed=20261130, **TABLE_GRID) for n, k in [(3, 3), (10, 3), (30, 3)]}


def worst(grid, method):
    return grid["methods"][method]["worst_coverage"]


def test_three_tasks_only_the_conservative_interval_holds(table):
    grid = table[(3, 3)]
    assert worst(grid, "wilson over task means") >= 0.95  # table: 0.97
    assert worst(grid, "wilson over trials") < 0.85  # table: 0.75
    assert worst(grid, "t over task means") < 0.80  # table: 0.69
    assert worst(grid, "bootstrap-percentile over tasks") < 0.75  # table: 0.66


def test_ten_tasks_task_level_methods_are_marginal(table):
    grid = table[(10, 3)]
    assert 0.86 <= worst(grid, "t over task means") <= 0.94  # table: 0.91
    assert 0.86 <= worst(grid, "bootstrap-percentile over tasks") <= 0.93  # table: 0.90
    assert worst(grid, "wilson over trials") < 0.85  # table: 0.80
    assert worst(grid, "wilson over task means") >= 0.95  # table: 0.98


def test_thirty_tasks_the_bootstrap_is_close_to_nominal(table):
    grid = table[(30, 3)]
    assert 0.92 <= worst(grid, "bootstrap-percentile over tasks") <= 0.955  # table: 0.94
    assert 0.91 <= worst(grid, "t over task means") <= 0.955  # table: 0.93
    assert 0.92 <= worst(grid, "wilson-clustered") <= 0.96  # table: 0.94
    assert worst(grid, "wilson over trials") < 0.88  # table: 0.83


def test_treating_tries_as_independent_gets_worse_with_more_tries():
    three, five = (coverage.coverage_grid(10, k, seed=1, **TABLE_GRID) for k in (3, 5))
    assert worst(five, "wilson over trials") < worst(three, "wilson over trials") - 0.04


def test_grid_output_is_complete_and_deterministic():
    first = coverage.coverage_grid(5, 2, seed=9, simulations=500)
    assert first == coverage.coverage_grid(5, 2, seed=9, simulations=500)
    assert first != coverage.coverage_grid(5, 2, seed=10, simulations=500)
    assert set(first["methods"]) == set(intervals.METHODS)
    assert (first["seed"], first["simulations"], first["n_tasks"], first["tries_per_task"]) == (9, 500, 5, 2)
    assert "Beta" in first["model"] and "exact bootstrap" in first["bootstrap"]
    for row in first["methods"].values():
        assert len(row["grid"]) == 15
        assert row["worst_coverage"] == min(cell["coverage"] for cell in row["grid"])
        assert set(row["worst_cell"]) == {"pass_rate", "correlation"}


def test_batch_intervals_reproduce_the_methods_run_by_run():
    """The simulation's vectorised methods are the report's methods: analytic ones to rounding,
    the exact bootstrap within one lattice step of a 40,000-resample run (and equal in most)."""
    tries, tasks = 3, 8
    passes = coverage.simulate_passes(np.random.default_rng(0), tasks, tries, 0.4, 0.5, 40)
    batch = coverage.batch_intervals(passes, tries)
    step = 1 / (tasks * tries)
    equal = 0
    for run, counts in enumerate(passes):
        for name, method in intervals.METHODS.items():
            single = method(np.full(tasks, tries), counts, seed=run, resamples=40_000, confidence=0.95)
            low, high = batch[name][0][run], batch[name][1][run]
            if single["low"] is None:
                assert np.isnan(low) and np.isnan(high), name
                continue
            tolerance = step + 1e-9 if name.startswith("bootstrap") else 1e-12
            assert abs(single["low"] - low) <= tolerance and abs(single["high"] - high) <= tolerance, name
            equal += name.startswith("bootstrap") and (single["low"], single["high"]) == pytest.approx((low, high))
    assert equal >= 0.9 * 2 * len(passes)


def test_exact_and_resampled_bootstrap_coverage_agree():
    exact = coverage.coverage_grid(10, 3, seed=4, simulations=1500, pass_rates=(0.3, 0.5), correlations=(0.5,))
    resampled = coverage.coverage_grid(10, 3, seed=4, simulations=1500, pass_rates=(0.3, 0.5), correlations=(0.5,),
                                       resamples=1000)
    assert "1000 resamples" in resampled["bootstrap"]
    for name in intervals.METHODS:
        for a, b in zip(exact["methods"][name]["grid"], resampled["methods"][name]["grid"]):
            assert a["coverage"] == pytest.approx(b["coverage"], abs=0.02), name


def test_coverage_grid_is_fast_enough_for_a_workflow_rule():
    start = time.perf_counter()
    coverage.coverage_grid(12, 3, seed=1)
    assert time.perf_counter() - start < 5


def test_headline_is_the_narrowest_method_that_holds(table):
    choice = coverage.choose_headline(table[(3, 3)])
    assert choice["method"] == "wilson over task means"
    assert choice["worst_coverage"] >= 0.95 and "3 tasks × 3 tries" in choice["text"]
    grid = table[(30, 3)]
    choice = coverage.choose_headline(grid)
    holding = {name: row for name, row in grid["methods"].items() if row["worst_coverage"] >= 0.95}
    assert choice["method"] in holding
    assert choice["mean_width"] == min(row["mean_width"] for row in holding.values())


def test_headline_says_in_words_when_nothing_holds():
    grid = {
        "n_tasks": 2, "tries_per_task": 4,
        "methods": {
            "a": {"worst_coverage": 0.71, "mean_width": 0.2},
            "b": {"worst_coverage": 0.934, "mean_width": 0.5},
        },
    }
    choice = coverage.choose_headline(grid)
    assert choice["method"] is None and choice["best"] == "b"
    assert choice["text"] == ("no method reaches 95% coverage at 2 tasks × 4 tries; "
                              "the best, b, covers 93.4% in its worst case")
    real = coverage.choose_headline(coverage.coverage_grid(1, 1, seed=1, simulations=500))
    assert real["method"] is None and real["text"].startswith("no method reaches 95% coverage at 1 tasks × 1 tries")


@pytest.mark.parametrize("arguments", [(0, 3), (3, 0), (3, 3.5)])
def test_coverage_grid_rejects_bad_arguments(arguments):
    with pytest.raises(ValueError):
        coverage.coverage_grid(*arguments, seed=1)
    with pytest.raises(ValueError):
        coverage.coverage_grid(3, 3, seed=1, correlations=(1.0,))


# --- paired comparison ---

def test_shared_and_unshared_tasks_are_counted_and_only_shared_ones_used():
    a = {"x": 0.0, "y": 1.0, "z": 0.5}
    b = {"y": 1.0, "z": 1.0, "w": 0.0, "v": 1.0}
    result = paired.paired_comparison(a, b, seed=1)
    assert (result["shared"], result["only_in_a"], result["only_in_b"]) == (2, 1, 2)
    assert result["mean_difference"] == pytest.approx(0.25)


def test_exact_sign_flip_p_value_by_hand():
    # d = (+0.5, +0.25, -0.25), mean sum 0.5. The 8 sign patterns give sums ±1, ±0.5, ±0.5, 0, 0;
    # six of them reach |sum| >= 0.5, so p = 6/8.
    a = {"x": 0.25, "y": 0.5, "z": 0.75}
    b = {"x": 0.75, "y": 0.75, "z": 0.5}
    result = paired.paired_comparison(a, b, seed=1)
    assert result["p_value"] == pytest.approx(6 / 8)
    assert "exact" in result["test"] and "8 sign patterns" in result["test"]
    # All three tasks improve by 1: only the all-plus and all-minus patterns are as extreme.
    assert paired.paired_comparison({"x": 0, "y": 0, "z": 0}, {"x": 1, "y": 1, "z": 1}, seed=1)["p_value"] == 0.25


def test_paired_intervals_are_named_and_match_their_references():
    from scipy import stats

    rng = np.random.default_rng(3)
    a = {f"task-{i}": float(rng.integers(0, 4)) / 3 for i in range(25)}
    b = {task: min(1.0, rate + float(rng.integers(0, 2)) / 3) for task, rate in a.items()}
    result = paired.paired_comparison(a, b, seed=7)
    differences = np.array([b[task] - a[task] for task in sorted(a)])
    t_reference = stats.ttest_1samp(differences, 0).confidence_interval(0.95)
    t_interval = result["intervals"]["t"]
    assert t_interval["method"] == "paired t over shared tasks"
    assert (t_interval["low"], t_interval["high"]) == pytest.approx((t_reference.low, t_reference.high))
    bootstrap = result["intervals"]["bootstrap"]
    assert bootstrap["method"] == "paired bootstrap-percentile over shared tasks" and bootstrap["seed"] == 7
    assert bootstrap["low"] <= result["mean_difference"] <= bootstrap["high"]
    assert "Monte Carlo" in result["test"] and result["p_value"] < 0.01
    assert result == paired.paired_comparison(a, b, seed=7)


def test_monte_carlo_p_value_agrees_with_exact_enumeration():
    a = {f"t{i}": 0.0 for i in range(16)}
    b = {f"t{i}": value for i, value in enumerate([1, 0.5, 0, 0, 1, 0, 0.5, 0, 0, 1, 0, 0, 0.5, 0, 0, 0])}
    exact = paired.paired_comparison(a, b, seed=1)
    b["t16"], a["t16"] = 0.0, 0.0
    sampled = paired.paired_comparison(a, b, seed=1, permutations=40_000)
    assert "exact" in exact["test"] and "Monte Carlo" in sampled["test"]
    assert sampled["p_value"] == pytest.approx(exact["p_value"], abs=0.01)


@pytest.mark.parametrize("a,b", [({}, {}), ({"x": 1.0}, {"x": 0.0, "y": 1.0}), ({"x": 1.0}, {"y": 1.0})])
def test_fewer_than_two_shared_tasks_give_no_claims(a, b):
    result = paired.paired_comparison(a, b, seed=1)
    assert result["p_value"] is None and "at least 2 shared tasks" in result["note"]
    assert all(interval["low"] is None for interval in result["intervals"].values())


def test_paired_rejects_rates_outside_unit_interval():
    with pytest.raises(ValueError):
        paired.paired_comparison({"x": 1.5, "y": 0}, {"x": 0, "y": 0}, seed=1)


def null_runs(tasks, tries, replications, seed):
    """Both settings draw every try of a task from the same pass rate (uniform on [0.2, 0.8])."""
    rng = np.random.default_rng(seed)
    names = [f"t{i}" for i in range(tasks)]
    for replication in range(replications):
        p = rng.uniform(0.2, 0.8, size=tasks)
        a, b = rng.binomial(tries, p) / tries, rng.binomial(tries, p) / tries
        yield paired.paired_comparison(dict(zip(names, a)), dict(zip(names, b)), seed=replication,
                                       resamples=1000, permutations=1000)


def excludes_zero(interval):
    return interval["low"] > 0 or interval["high"] < 0


@pytest.mark.parametrize("tasks", [5, 10])
def test_sign_flip_interval_keeps_the_level_where_the_bootstrap_does_not(tasks):
    """Under no difference the sign-flip interval excludes 0 at most 5% of the time (its test is
    exact); the paired bootstrap, at these few tasks, more often (benchmarks/bench_paired.py)."""
    runs = list(null_runs(tasks, 3, 800, seed=tasks))
    permutation = np.mean([excludes_zero(r["intervals"]["permutation"]) for r in runs])
    bootstrap = np.mean([excludes_zero(r["intervals"]["bootstrap"]) for r in runs])
    rejected = np.mean([r["p_value"] <= 0.05 for r in runs])
    assert permutation == rejected  # the interval is the test, inverted
    assert permutation <= 0.05
    assert bootstrap > 0.05 + 3 * np.sqrt(0.05 * 0.95 / len(runs))


def test_sign_flip_interval_holds_exactly_the_shifts_the_test_accepts():
    rng = np.random.default_rng(11)
    for tasks, permutations in [(7, 10_000), (12, 10_000), (40, 2_000)]:
        a = {f"t{i}": float(rng.integers(0, 4)) / 3 for i in range(tasks)}
        b = {f"t{i}": float(rng.integers(0, 4)) / 3 for i in range(tasks)}
        result = paired.paired_comparison(a, b, seed=3, permutations=permutations)
        low, high = result["intervals"]["permutation"]["low"], result["intervals"]["permutation"]["high"]
        differences = np.array([b[t] - a[t] for t in sorted(a)])
        flips = paired.SignFlips(differences, permutations, 3)
        accepted = [shift for shift in np.linspace(-1, 1, 4001) if flips.p_value(shift) > 0.05]
        assert low <= min(accepted) and max(accepted) <= high
        # the ends are where the test stops accepting: accepted there, rejected just outside
        for end, outside in ((low, low - 1e-6), (high, high + 1e-6)):
            if abs(end) < 1:
                assert flips.p_value(end) > 0.05 >= flips.p_value(outside)
        assert low <= result["mean_difference"] <= high


def test_few_tasks_say_what_they_cannot_show():
    a = {f"t{i}": 0.0 for i in range(5)}
    b = {f"t{i}": 1.0 for i in range(5)}
    five = paired.paired_comparison(a, b, seed=1, tries=(dict.fromkeys(a, 3), dict.fromkeys(b, 3)))
    # every task improved by 100 points, yet at 5 tasks p cannot go below 2/32
    assert five["p_value"] == five["smallest_p_value"] == 0.0625
    assert (five["intervals"]["permutation"]["low"], five["intervals"]["permutation"]["high"]) == (-1.0, 1.0)
    assert five["minimum_detectable_difference"]["value"] is None
    assert "cannot go below 0.0625" in five["minimum_detectable_difference"]["reason"]
    a["t5"], b["t5"] = 0.0, 1.0
    six = paired.paired_comparison(a, b, seed=1)
    assert six["smallest_p_value"] == six["p_value"] == 2 / 64
    assert six["intervals"]["permutation"]["low"] > 0
    many = paired.paired_comparison({f"t{i}": 0.0 for i in range(17)}, {f"t{i}": 1.0 for i in range(17)},
                                    seed=1, permutations=999)
    assert many["smallest_p_value"] == 1 / 1000


def detectable(tasks, tries, seed=4):
    rng = np.random.default_rng(seed)
    a = {f"t{i}": float(rng.integers(0, tries + 1)) / tries for i in range(tasks)}
    b = {f"t{i}": float(rng.integers(0, tries + 1)) / tries for i in range(tasks)}
    counts = dict.fromkeys(a, tries)
    return paired.paired_comparison(a, b, seed=1, tries=(counts, counts))["minimum_detectable_difference"]


def test_minimum_detectable_difference_has_the_power_it_claims():
    """At the difference given, the power (exact test simulated at 10 tasks, its normal form at 30)
    is the one asked for, and just below it it is not; more tasks or tries detect less."""
    for tasks in (10, 30):
        rng = np.random.default_rng(tasks)
        passed_a, passed_b = rng.integers(0, 4, tasks), rng.integers(0, 4, tasks)
        tries = np.full(tasks, 3)
        found = paired.minimum_detectable_difference(passed_a, tries, passed_b, tries, confidence=0.95, power=0.8,
                                                     smallest_p=0.001, seed=1)
        pooled = (passed_a + passed_b + 0.5) / 7
        logit = np.log(pooled / (1 - pooled))

        def power_at(difference):
            low, high = 0.0, 40.0
            for _ in range(60):
                theta = (low + high) / 2
                a, b = 1 / (1 + np.exp(-(logit - theta / 2))), 1 / (1 + np.exp(-(logit + theta / 2)))
                low, high = (theta, high) if np.mean(b - a) < difference else (low, theta)
            if tasks <= paired.POWER_EXACT_LIMIT:
                return paired._simulated_power(a, tries, b, tries, 0.05, 1)
            return paired._normal_power(a, tries, b, tries, 0.05)

        assert power_at(found["value"] + 1e-9) >= 0.8 > power_at(found["value"] * 0.9)
    assert detectable(20, 1)["value"] > detectable(20, 5)["value"] > detectable(80, 5)["value"]
    assert detectable(20, 3) == detectable(20, 3)  # seeded
    untold = paired.paired_comparison({"x": 0.0, "y": 1.0}, {"x": 1.0, "y": 1.0}, seed=1)
    assert untold["minimum_detectable_difference"]["reason"] == "the tries per task were not given"


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04 of m = 3: 3 x 0.01, max(0.03, 2 x 0.03), max(0.06, 1 x 0.04)
    assert paired.holm([0.01, 0.04, 0.03, None]) == pytest.approx([0.03, 0.06, 0.06, None])
    assert paired.holm([0.5, 0.9]) == [1.0, 1.0] and paired.holm([0.02]) == [0.02] and paired.holm([]) == []


def test_comparisons_adjust_across_pairs_and_print_the_configured_level():
    from benchreport import compare

    rng = np.random.default_rng(8)
    stats = {}
    for name, shift in (("a", 0), ("b", 1), ("c", 2)):
        stats[name] = {"setting": name, "description": f"agent {name}",
                       "per_task": [{"task": f"t{i}", "trials": 3,
                                     "rate": min(1.0, float(rng.integers(0, 2) + shift) / 3)} for i in range(20)]}
    params = {"seed": 1, "resamples": 1000, "permutations": 1000, "confidence": 0.9}
    data = compare.comparisons(stats, "all", params, power=0.8)
    raw = [pair["p_value"] for pair in data["pairs"]]
    assert [pair["p_value_holm"] for pair in data["pairs"]] == paired.holm(raw)
    assert data["multiple_comparisons"]["pairs_with_p_value"] == 3 and data["confidence"] == 0.9
    assert all(pair["confidence"] == 0.9 and pair["preferred"] == "permutation" for pair in data["pairs"])
    markdown = compare.render_markdown(data)
    assert "90% interval (sign-flip)" in markdown and "95%" not in markdown
    assert "Holm p" in markdown and "80% power" in markdown
    assert all(pair["minimum_detectable_difference"]["value"] for pair in data["pairs"])
    header, *rows = compare.render_csv(data).splitlines()
    assert "p_value_holm" in header.split(",") and len(rows) == 3
    assert compare.render_markdown(compare.comparisons({"a": stats["a"]}, "all", params, 0.8)).count("No pair") == 1


# --- pass@k and pass^k ---

def brute_force(n, c, k):
    """Average over every k-subset of the n trials: any passes (pass@k), all pass (pass^k)."""
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(outcomes, k))
    return sum(any(s) for s in subsets) / len(subsets), sum(all(s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 8))
def test_pass_at_k_and_pass_hat_k_match_enumeration(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            at, hat = brute_force(n, c, k)
            assert passk.pass_at_k(n, c, k) == pytest.approx(at)
            assert passk.pass_hat_k(n, c, k) == pytest.approx(hat)
        assert passk.pass_at_k(n, c, n + 1) is None and passk.pass_hat_k(n, c, n + 1) is None


def test_benchflow_docstring_examples():
    assert round(passk.pass_at_k(5, 2, 2), 3) == 0.7 and round(passk.pass_hat_k(5, 3, 2), 3) == 0.3


def test_solve_rates_default_ks_and_short_tasks():
    result = passk.solve_rates([10, 12, 20], [5, 12, 0])
    # BenchFlow's default ks, up to the largest task's count (and that count): the short tasks counted
    assert result["ks"] == [1, 2, 4, 5, 8, 10, 15, 16, 20]
    assert [(row["k"], row["tasks_short_at_k"]) for row in result["per_k"][-4:]] == [(10, 0), (15, 2), (16, 2), (20, 2)]
    assert passk.run_ks([3, 3, 2]) == [1, 2, 3] and passk.default_ks(3) == [1, 2]
    assert result["solve_rate"] == pytest.approx(17 / 42)
    first = result["per_k"][0]
    assert first["pass_at_k"] == pytest.approx((0.5 + 1 + 0) / 3) and first["tasks_short_at_k"] == 0
    explicit = passk.solve_rates([2, 4, 6], [1, 4, 0], ks=[3, 1, 7])
    assert explicit["ks"] == [1, 3, 7]
    three, seven = explicit["per_k"][1], explicit["per_k"][2]
    assert (three["tasks_at_k"], three["tasks_short_at_k"]) == (2, 1)
    assert three["pass_at_k"] == pytest.approx((1 + 0) / 2)
    assert three["pass_hat_k"] == pytest.approx((1 + 0) / 2)
    assert seven == {"k": 7, "pass_at_k": None, "pass_hat_k": None, "tasks_at_k": 0, "tasks_short_at_k": 3}


def benchflow_solve_rates(rows):
    """BenchFlow's own counting (src/benchflow/pass_at_k.py, `solve_rates`), written out here: a
    trial with no reward is unscored and not in n; tasks are known from scored trials only."""
    per_task = {}
    for task, outcome in rows:
        if outcome in ("passed", "failed"):
            per_task.setdefault(task, []).append(outcome == "passed")
    counts = [(len(v), sum(v)) for v in per_task.values()]
    smallest = min(n for n, _ in counts)
    return {k: np.mean([passk.pass_at_k(n, c, k) for n, c in counts if n >= k]) for k in passk.default_ks(smallest)}


def test_pass_at_k_leaves_errored_trials_out_as_benchflow_does():
    from benchreport import stats

    trials = [("a", "passed"), ("a", "errored"), ("a", "failed"),
              ("b", "passed"), ("b", "verifier_errored"), ("b", "unscored"),
              ("c", "failed"), ("c", "failed"), ("c", "passed"),
              ("d", "errored"), ("d", "errored"), ("d", "errored")]
    rows = []
    for task in "abcd":
        outcomes = [outcome for name, outcome in trials if name == task]
        rows.append({"task": task, "trials": len(outcomes), "passed": outcomes.count("passed"), "outcomes": outcomes})
    result = stats.solve_rates(rows)
    # pass@1: a 1/2, b 1/1, c 1/3 over scored trials (counting errors as failures: 1/3, 1/3, 1/3, 0)
    first = result["per_k"][0]
    assert first["pass_at_k"] == pytest.approx((1 / 2 + 1 + 1 / 3) / 3) == benchflow_solve_rates(trials)[1]
    assert first["tasks_at_k"] == 3 and result["tasks_without_scored_trial"] == ["d"]
    assert (result["tasks"], result["trials"], result["unscored_left_out"]) == (3, 6, 6)
    assert result["solve_rate"] == pytest.approx(3 / 6) and "not counted as failures" in result["counting"]
    # k up to the run's tries: c has 3 scored trials, so k = 3 is given, a and b counted short
    assert result["ks"] == [1, 2, 3] and result["per_k"][2]["tasks_short_at_k"] == 2
    assert result["per_k"][2]["pass_hat_k"] == 0.0 and result["max_trials_per_task"] == 3
    assert stats.solve_rates([rows[3]]) is None


def test_solve_rates_rejects_bad_input():
    with pytest.raises(ValueError):
        passk.solve_rates([3, 0], [1, 0])
    with pytest.raises(ValueError):
        passk.solve_rates([3], [1], ks=[0])
    with pytest.raises(ValueError):
        passk.pass_at_k(3, 4, 1)
