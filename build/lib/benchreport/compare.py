"""Paired comparisons between settings on their shared tasks, as tables a paper can print."""

from __future__ import annotations

from itertools import combinations

from .paired import paired_comparison
from .render import cell, pct


def task_rates(stats: dict) -> dict[str, float]:
    return {row["task"]: row["rate"] for row in stats["per_task"]}


def requested_pairs(settings: list[str], pairs) -> list[tuple[str, str]]:
    """Every pair of agent settings (sorted), or the pairs the config names that exist."""
    if pairs == "all":
        return list(combinations(sorted(settings), 2))
    return [(a, b) for a, b in pairs if a in settings and b in settings]


def compare(stats_a: dict, stats_b: dict, params: dict) -> dict:
    rates_a, rates_b = task_rates(stats_a), task_rates(stats_b)
    result = paired_comparison(
        rates_a, rates_b, seed=params["seed"], resamples=params["resamples"],
        permutations=params["permutations"], confidence=params["confidence"],
    )
    shared = sorted(set(rates_a) & set(rates_b))
    return {
        "a": stats_a["setting"],
        "b": stats_b["setting"],
        "a_description": stats_a["description"],
        "b_description": stats_b["description"],
        **result,
        "per_task": [{"task": t, "rate_a": rates_a[t], "rate_b": rates_b[t], "difference": rates_b[t] - rates_a[t]}
                     for t in shared],
    }


def signed_pct(value) -> str:
    return "n/a" if value is None else f"{value * 100:+.0f} pp"


def render_markdown(comparisons: list[dict]) -> str:
    lines = [
        "# Paired comparisons on shared tasks",
        "",
        "Difference = mean over the tasks both settings ran of (pass rate of B − pass rate of A), in percentage "
        "points. Intervals resample or model tasks, paired; the p-value is a two-sided sign-flip permutation "
        "test over tasks. Interval overlap and trial-level McNemar are not used: tries of one task are not "
        "independent.",
        "",
        "| A | B | Shared tasks | Only A | Only B | Difference | 95% interval (paired bootstrap) | 95% interval (paired t) | p-value |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | --- | ---: |",
    ]
    for c in comparisons:
        boot, t = c["intervals"]["bootstrap"], c["intervals"]["t"]
        p_value = "n/a" if c["p_value"] is None else f"{c['p_value']:.3g}"
        lines.append(
            f"| {cell(c['a_description'])} | {cell(c['b_description'])} | {c['shared']} | {c['only_in_a']} | "
            f"{c['only_in_b']} | {signed_pct(c['mean_difference'])} | {signed_pct(boot['low'])} to {signed_pct(boot['high'])} | "
            f"{signed_pct(t['low'])} to {signed_pct(t['high'])} | {p_value} |"
        )
    if not comparisons:
        lines.append("| — | — | | | | | | | |")
    for c in comparisons:
        lines += ["", f"## {cell(c['a_description'])} (A) vs {cell(c['b_description'])} (B)", ""]
        if c.get("note"):
            lines += [c["note"] + ".", ""]
        if c.get("test"):
            lines += [f"p-value: {c['test']}.", ""]
        lines += ["| Task | A | B | B − A |", "| --- | ---: | ---: | ---: |"]
        lines += [f"| {cell(r['task'])} | {pct(r['rate_a'])} | {pct(r['rate_b'])} | {signed_pct(r['difference'])} |"
                  for r in c["per_task"]]
    return "\n".join(lines) + "\n"


def render_csv(comparisons: list[dict]) -> str:
    header = "a,b,shared_tasks,only_a,only_b,mean_difference,bootstrap_low,bootstrap_high,t_low,t_high,p_value,test"
    rows = [header]
    for c in comparisons:
        boot, t = c["intervals"]["bootstrap"], c["intervals"]["t"]
        values = [c["a"], c["b"], c["shared"], c["only_in_a"], c["only_in_b"], c["mean_difference"],
                  boot["low"], boot["high"], t["low"], t["high"], c["p_value"], c["test"] or ""]
        rows.append(",".join("" if v is None else f'"{v}"' if isinstance(v, str) and "," in v else str(v) for v in values))
    return "\n".join(rows) + "\n"
