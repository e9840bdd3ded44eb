"""Paired comparison, pass@k / pass^k (the coverage design: tests/test_coverage_design.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from benchreport.compute import paired, passk

# --- paired comparison ---


def counts(pairs):
    return {f"t{i}": tuple(pair) for i, pair in enumerate(pairs)}


def compared(pairs_a, pairs_b, **settings):
    return paired.paired_comparison(counts(pairs_a), counts(pairs_b), **({"seed": 1} | settings))


def test_shared_and_unshared_tasks_are_counted_and_only_shared_ones_used():
    a = {"x": (0, 2), "y": (2, 2), "z": (1, 2)}
    b = {"y": (1, 1), "z": (3, 3), "w": (0, 1), "v": (1, 1)}
    result = paired.paired_comparison(a, b, seed=1)
    assert (result["shared"], result["only_in_a"], result["only_in_b"]) == (2, 1, 2)
    assert result["mean_difference"] == pytest.approx(0.25)


def brute_force_tails(pairs_a, pairs_b):
    """Every assignment of each task's trials to a and b (a keeps its count of tries), equally
    likely: P(mean difference ≤ observed), P(≥ observed)."""
    outcomes_per_task = []
    for (passed_a, tries_a), (passed_b, tries_b) in zip(pairs_a, pairs_b):
        trials = [1] * (passed_a + passed_b) + [0] * (tries_a + tries_b - passed_a - passed_b)
        outcomes_per_task.append(
            [
                sum(trials[i] for i in chosen) / tries_b - (sum(trials) - sum(trials[i] for i in chosen)) / tries_a
                for chosen in itertools.combinations(range(len(trials)), tries_b)
            ]
        )
    observed = np.mean([b / m - a / n for (a, n), (b, m) in zip(pairs_a, pairs_b)])
    means = np.array([np.mean(choice) for choice in itertools.product(*outcomes_per_task)])
    return np.mean(means <= observed + 1e-12), np.mean(means >= observed - 1e-12)


@pytest.mark.parametrize(
    "pairs_a,pairs_b",
    [
        ([(0, 1), (1, 1), (0, 1)], [(3, 4), (2, 4), (4, 4)]),
        ([(1, 2), (0, 3), (2, 2), (1, 1)], [(2, 3), (1, 1), (0, 2), (2, 3)]),
        ([(0, 1)] * 3, [(1, 1)] * 3),
    ],
)
def test_the_exact_law_is_every_relabelling_of_each_tasks_trials(pairs_a, pairs_b):
    (passed_a, tries_a), (passed_b, tries_b) = zip(*pairs_a), zip(*pairs_b)
    test = paired.LabelPermutation(passed_a, tries_a, passed_b, tries_b, 1000, 1)
    assert test.exact and test.tails() == pytest.approx(brute_force_tails(pairs_a, pairs_b))
    result = compared(pairs_a, pairs_b)
    assert result["p_value"] == pytest.approx(min(1, 2 * min(brute_force_tails(pairs_a, pairs_b))))
    assert "exact" in result["test"]


def test_one_try_each_is_the_sign_flip_and_its_bounds():
    # three tasks, each 0 -> 1: only the all-plus pattern reaches the observed mean, 1/8 per side
    assert compared([(0, 1)] * 3, [(1, 1)] * 3)["p_value"] == 0.25
    five = compared([(0, 1)] * 5, [(1, 1)] * 5, power=0.8)
    assert five["p_value"] == five["smallest_p_value"] == 0.0625
    assert five["minimum_detectable_difference"]["value"] is None
    assert "cannot go below 0.0625" in five["minimum_detectable_difference"]["reason"]
    interval = five["intervals"]["permutation"]
    assert interval["low"] < 0 and interval["high"] == 1.0 and interval["log_odds_high"] is None


def test_more_tries_show_what_one_try_cannot():
    three = compared([(0, 3)] * 5, [(3, 3)] * 5)
    # a task's 3 passes fall all on b with probability 1/C(6, 3) = 1/20 under no difference
    assert three["p_value"] == pytest.approx(2 / 20**5) == three["smallest_p_value"]
    assert three["intervals"]["permutation"]["low"] > 0.5


def test_monte_carlo_agrees_with_the_exact_law(monkeypatch):
    rng = np.random.default_rng(5)
    tries_a, tries_b = rng.integers(1, 6, 12), rng.integers(1, 11, 12)
    rates = rng.uniform(0.2, 0.8, 12)
    passed_a, passed_b = rng.binomial(tries_a, rates), rng.binomial(tries_b, np.minimum(1, rates + 0.2))
    exact = paired.LabelPermutation(passed_a, tries_a, passed_b, tries_b, 20_000, 1)
    monkeypatch.setattr(paired, "EXACT_BUDGET", 10)
    sampled = paired.LabelPermutation(passed_a, tries_a, passed_b, tries_b, 20_000, 1)
    assert exact.exact and not sampled.exact and "Monte Carlo with 20000 seeded draws" in sampled.test
    assert sampled.p_value() == pytest.approx(exact.p_value(), abs=0.005)
    assert sampled.log_odds_interval(0.05) == pytest.approx(exact.log_odds_interval(0.05), abs=0.1)
    # the batch of the power simulation computes the same p-value, with either setting as a
    batch = paired.batch_p_values(passed_a[None], tries_a, passed_b[None], tries_b)
    assert (
        batch[0]
        == pytest.approx(exact.p_value())
        == paired.batch_p_values(passed_b[None], tries_b, passed_a[None], tries_a)[0]
    )


def null_passes(tasks, tries_a, tries_b, runs, seed, rates=(0.2, 0.8)):
    """Both settings draw every try of a task from the same pass rate (uniform on `rates`)."""
    rng = np.random.default_rng(seed)
    rates = rng.uniform(*rates, (runs, tasks))
    return rng.binomial(tries_a, rates), rng.binomial(tries_b, rates)


def test_unequal_tries_keep_the_level_where_a_sign_flip_does_not():
    """20 hard shared tasks (5% pass rate), a tried once and b ten times, no difference: the test
    rejects at most 5% of 600 runs (+ 2 Monte Carlo standard errors); a sign flip of the same
    differences, symmetric only when the tries are equal, rejects about 30%."""
    runs, tasks = 600, 20
    tries_a, tries_b = np.full(tasks, 1), np.full(tasks, 10)
    passed_a, passed_b = null_passes(tasks, 1, 10, runs, seed=54, rates=(0.05, 0.05))
    p_values = paired.batch_p_values(passed_a, tries_a, passed_b, tries_b)
    assert np.mean(p_values <= 0.05) <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / runs)
    for run in range(3):  # the batch is the comparison's own p-value
        result = compared(list(zip(passed_a[run], tries_a)), list(zip(passed_b[run], tries_b)), power=None)
        assert result["p_value"] == pytest.approx(p_values[run])
    differences = passed_b / 10 - passed_a
    flips = np.random.default_rng(1).choice([-1.0, 1.0], (2000, tasks))
    flipped = np.abs(differences @ flips.T)
    sign_flip = np.mean(flipped >= np.abs(differences.sum(axis=1))[:, None] - 1e-9, axis=1)
    assert np.mean(sign_flip <= 0.05) > 0.2


def test_the_interval_is_the_test_inverted_and_the_bootstrap_is_no_test():
    """At 5 tasks × 3 tries under no difference the interval excludes 0 exactly when p ≤ 0.05, at
    most 5% of the time; the paired bootstrap spread more often (benchmarks/bench_paired.py)."""
    passed_a, passed_b = null_passes(5, 3, 3, 400, seed=5)
    runs = [
        compared(list(zip(a, [3] * 5)), list(zip(b, [3] * 5)), seed=run, resamples=1000, power=None)
        for run, (a, b) in enumerate(zip(passed_a, passed_b))
    ]

    def excludes_zero(interval):
        return interval["low"] > 0 or interval["high"] < 0

    permutation = [excludes_zero(r["intervals"]["permutation"]) for r in runs]
    assert permutation == [r["p_value"] <= 0.05 for r in runs]
    assert np.mean(permutation) <= 0.05
    assert np.mean([excludes_zero(r["intervals"]["bootstrap"]) for r in runs]) > 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400)
    assert all(
        r["intervals"]["permutation"]["low"] <= r["mean_difference"] <= r["intervals"]["permutation"]["high"]
        for r in runs
    )


def test_the_interval_ends_are_where_the_one_sided_tests_stop_accepting():
    rng = np.random.default_rng(11)
    for tasks in (7, 30):
        tries_a, tries_b = rng.integers(1, 4, tasks), rng.integers(2, 6, tasks)
        passed_a, passed_b = rng.binomial(tries_a, 0.4), rng.binomial(tries_b, 0.6)
        test = paired.LabelPermutation(passed_a, tries_a, passed_b, tries_b, 1000, 1)
        low, high = test.log_odds_interval(0.05)
        assert test.tails(low)[1] == pytest.approx(0.025) and test.tails(high)[0] == pytest.approx(0.025)
        assert test.tails(low - 0.01)[1] < 0.025 and test.tails(high + 0.01)[0] < 0.025
        total = passed_a + passed_b
        ends = [paired.fitted_difference(total, tries_a, tries_b, shift) for shift in (low, 0.0, high)]
        assert ends[0] < ends[1] == 0.0 < ends[2] or low > 0 or high < 0
        result = compared(list(zip(passed_a, tries_a)), list(zip(passed_b, tries_b)), power=None)
        interval = result["intervals"]["permutation"]
        assert (interval["low"], interval["high"]) == pytest.approx((ends[0], ends[2]))


@pytest.mark.parametrize("pairs", [[], [(1, 1)], [(0, 2)]])
def test_fewer_than_two_shared_tasks_give_no_claims(pairs):
    result = compared(pairs, pairs)
    assert result["p_value"] is None and "at least 2 shared tasks" in result["note"]
    assert all(interval["low"] is None for interval in result["intervals"].values())


def test_the_seed_gives_the_same_record():
    rng = np.random.default_rng(3)
    pairs_a = [(int(rng.integers(0, 4)), 3) for _ in range(25)]
    pairs_b = [(int(rng.integers(0, 3)), 2) for _ in range(25)]
    first = compared(pairs_a, pairs_b, seed=7, power=0.8)
    assert first == compared(pairs_a, pairs_b, seed=7, power=0.8)
    assert first["intervals"]["bootstrap"]["seed"] == 7


def detectable(tasks, tries, seed=4):
    rng = np.random.default_rng(seed)
    pairs_a = [(int(rng.integers(0, tries + 1)), tries) for _ in range(tasks)]
    pairs_b = [(int(rng.integers(0, tries + 1)), tries) for _ in range(tasks)]
    return compared(pairs_a, pairs_b, power=0.8)["minimum_detectable_difference"]


def test_minimum_detectable_difference_has_the_power_it_claims():
    """At the difference given, the power (exact test simulated at 10 tasks, its normal form at 30)
    is the one asked for, and just below it it is not; more tasks or tries detect less."""
    for tasks in (10, 30):
        rng = np.random.default_rng(tasks)
        passed_a, passed_b = rng.integers(0, 4, tasks), rng.integers(0, 4, tasks)
        tries = np.full(tasks, 3)
        pooled = (passed_a + passed_b + 0.5) / 7
        assert paired.pooled_rates(passed_a, tries, passed_b, tries) == pytest.approx(pooled)
        found = paired.minimum_detectable_difference(
            pooled, tries, tries, confidence=0.95, power=0.8, smallest_p=0.001, seed=1
        )
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
    more = detectable(20, 3)
    assert more["value"] > max(more["more"].values())
    assert detectable(20, 3) == detectable(20, 3)  # seeded


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04 of m = 3: 3 x 0.01, max(0.03, 2 x 0.03), max(0.06, 1 x 0.04)
    assert paired.holm([0.01, 0.04, 0.03, None]) == pytest.approx([0.03, 0.06, 0.06, None])
    assert paired.holm([0.5, 0.9]) == [1.0, 1.0] and paired.holm([0.02]) == [0.02] and paired.holm([]) == []


def test_comparisons_adjust_across_pairs_and_print_the_configured_level():
    from benchreport.compute import comparisons as compare

    rng = np.random.default_rng(8)
    stats = {}
    for name, shift in (("a", 0), ("b", 1), ("c", 2)):
        rows = []
        for i in range(20):
            passed = min(3, int(rng.integers(0, 2)) + shift)
            rows.append({"task": f"t{i}", "trials": 3, "passed": passed, "rate": passed / 3})
        stats[name] = {"setting": name, "description": f"agent {name}", "per_task": rows}
    params = {"seed": 1, "resamples": 1000, "permutations": 1000, "confidence": 0.9}
    data = compare.comparisons(stats, "all", params, power=0.8)
    raw = [pair["p_value"] for pair in data["pairs"]]
    assert [pair["p_value_holm"] for pair in data["pairs"]] == paired.holm(raw)
    assert data["multiple_comparisons"]["pairs_with_p_value"] == 3 and data["confidence"] == 0.9
    assert all(pair["confidence"] == 0.9 and pair["preferred"] == "permutation" for pair in data["pairs"])
    markdown = compare.render_markdown(data)
    assert "90% interval (permutation)" in markdown and "95%" not in markdown and "sign" not in markdown
    assert "within-task permutation" in markdown and "Holm p" in markdown and "80% power" in markdown
    assert markdown.count("A larger run: with twice the shared tasks the test would detect ±") == 3
    assert all(pair["minimum_detectable_difference"]["value"] for pair in data["pairs"])
    header, *rows = compare.render_csv(data).splitlines()
    assert "p_value_holm" in header.split(",") and len(rows) == 3
    assert compare.render_markdown(compare.comparisons({"a": stats["a"]}, "all", params, 0.8)).count("No pair") == 1


def test_controls_are_never_compared():
    from benchreport.compute import comparisons as compare

    numbers = [
        {"setting": name, "key": {"control": kind}} for name, kind in (("b", None), ("oracle", "oracle"), ("a", None))
    ]
    assert list(compare.agent_settings(numbers)) == ["b", "a"]


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
    from benchreport.compute import stats

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
