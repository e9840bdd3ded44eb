"""pass@k and pass^k over repeated trials, as BenchFlow counts them.

BenchFlow's `solve_rates` (src/benchflow/pass_at_k.py in benchflow-ai/benchflow) counts only
*scored* trials: a trial with no reward (an agent error, a verifier error, nothing recorded) is
left out of a task's n, never counted as a failure, and a task with no scored trial is left out
altogether. pass@k is the chance that at least one of k tries of a task passes, pass^k that all k
pass. Both use the unbiased estimators over a task's n scored trials with c passes, and need
n ≥ k: a task with fewer is left out at that k and counted as short, never extrapolated.
"""

from __future__ import annotations

import math

from .intervals import task_counts


def _check(n: int, c: int, k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """1 − C(n−c, k)/C(n, k) (Chen et al. 2021): P(some of k tries drawn from the n passes)."""
    _check(n, c, k)
    if n < k:
        return None
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float | None:
    """C(c, k)/C(n, k) (tau-bench): P(all of k tries drawn without replacement pass)."""
    _check(n, c, k)
    if n < k:
        return None
    return math.comb(c, k) / math.comb(n, k)


def default_ks(min_trials: int) -> list[int]:
    """1, the powers of 2 and the multiples of 5 up to the smallest per-task trial count
    (BenchFlow's `default_ks`)."""
    ks = {1} | set(range(5, min_trials + 1, 5))
    power = 2
    while power <= min_trials:
        ks.add(power)
        power *= 2
    return sorted(ks)


def run_ks(trials_per_task) -> list[int]:
    """BenchFlow's default ks up to the largest per-task count of scored trials, and that count
    itself: a 3-try run gets k = 3 too (BenchFlow stops at the smallest count, 1 and 2 there);
    the tasks with fewer trials are counted as short at the larger ks."""
    largest = max((int(n) for n in trials_per_task), default=0)
    return sorted(set(default_ks(largest)) | ({largest} if largest else set()))


def _task_mean(values: list[float | None]) -> float | None:
    """The mean over the tasks with at least k trials; None when there are none."""
    if not values:
        return None
    known = [value for value in values if value is not None]
    assert len(known) == len(values), "a task with at least k trials has a value at k"
    return math.fsum(known) / len(known)


def solve_rates(trials_per_task, passes_per_task, ks=None) -> dict:
    """pass@k and pass^k at each k: the mean over tasks with n_i ≥ k, and how many were short.

    Returns {"solve_rate": Σc/Σn, "ks": [...], "per_k": [{"k", "pass_at_k", "pass_hat_k",
    "tasks_at_k", "tasks_short_at_k"}, ...]}; a mean is None when no task has k trials.
    Every task needs at least one scored trial (BenchFlow only knows tasks from scored trials);
    ks defaults to run_ks.
    """
    trials, passes = task_counts(trials_per_task, passes_per_task)
    counts = [(int(n), int(c)) for n, c in zip(trials, passes)]
    wanted = run_ks(n for n, _ in counts) if ks is None else sorted(set(ks))
    if any(int(k) != k or k < 1 for k in wanted):
        raise ValueError(f"every k must be a positive integer, got {wanted}")
    per_k = []
    for k in wanted:
        eligible = [(n, c) for n, c in counts if n >= k]
        per_k.append(
            {
                "k": int(k),
                "pass_at_k": _task_mean([pass_at_k(n, c, k) for n, c in eligible]),
                "pass_hat_k": _task_mean([pass_hat_k(n, c, k) for n, c in eligible]),
                "tasks_at_k": len(eligible),
                "tasks_short_at_k": len(counts) - len(eligible),
            }
        )
    total = sum(n for n, _ in counts)
    return {
        "solve_rate": sum(c for _, c in counts) / total if total else None,
        "ks": [row["k"] for row in per_k],
        "per_k": per_k,
    }
