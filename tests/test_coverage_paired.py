"""Paired comparison, pass@k / pass^k (the coverage design: tests/test_coverage_design.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from benchreport import paired, passk

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
        yield paired.paired_comparison(
            dict(zip(names, a)), dict(zip(names, b)), seed=replication, resamples=1000, permutations=1000
        )


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
    many = paired.paired_comparison(
        {f"t{i}": 0.0 for i in range(17)}, {f"t{i}": 1.0 for i in range(17)}, seed=1, permutations=999
    )
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
        found = paired.minimum_detectable_difference(
            passed_a, tries, passed_b, tries, confidence=0.95, power=0.8, smallest_p=0.001, seed=1
        )
        pooled = (passed_a + passed_b + 0.5) / 7
        logit = np.log(pooled / (1 - pooled))

        def power_at(difference, logit=logit, tasks=tasks, tries=tries):  # this iteration's run
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
    from benchreport import comparisons as compare

    rng = np.random.default_rng(8)
    stats = {}
    for name, shift in (("a", 0), ("b", 1), ("c", 2)):
        stats[name] = {
            "setting": name,
            "description": f"agent {name}",
            "per_task": [
                {"task": f"t{i}", "trials": 3, "rate": min(1.0, float(rng.integers(0, 2) + shift) / 3)}
                for i in range(20)
            ],
        }
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

    trials = [
        ("a", "passed"),
        ("a", "errored"),
        ("a", "failed"),
        ("b", "passed"),
        ("b", "verifier_errored"),
        ("b", "unscored"),
        ("c", "failed"),
        ("c", "failed"),
        ("c", "passed"),
        ("d", "errored"),
        ("d", "errored"),
        ("d", "errored"),
    ]
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
