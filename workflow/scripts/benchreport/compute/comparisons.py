"""Paired comparisons between settings on their shared tasks, as tables a paper can print."""

from __future__ import annotations

from itertools import combinations

from ..present.present import cell, level, p_text, pct, points, signed_pp
from .paired import holm, paired_comparison

HOLM = (
    "Holm's step-down adjustment over the {count} pairs with a p-value: the chance that any of "
    "them reaches its adjusted p by chance stays under that p"
)


def task_counts(stats: dict) -> dict[str, tuple[int, int]]:
    """task -> (passes, tries) of one setting's record."""
    return {row["task"]: (row["passed"], row["trials"]) for row in stats["per_task"]}


def agent_settings(numbers: list[dict]) -> dict[str, dict]:
    """setting -> its stats, for every agent setting among `numbers`: controls are never compared."""
    return {data["setting"]: data for data in numbers if not data["key"]["control"]}


def requested_pairs(settings: list[str], pairs) -> list[tuple[str, str]]:
    """Every pair of agent settings (sorted), or the pairs the config names that exist."""
    if pairs == "all":
        return list(combinations(sorted(settings), 2))
    return [(a, b) for a, b in pairs if a in settings and b in settings]


def compare_counts(counts_a: dict, counts_b: dict, params: dict, power: float | None) -> dict:
    """`paired.paired_comparison` at the workflow's `statistics:` parameters."""
    return paired_comparison(
        counts_a,
        counts_b,
        seed=params["seed"],
        resamples=params["resamples"],
        permutations=params["permutations"],
        confidence=params["confidence"],
        power=power,
    )


def compare(stats_a: dict, stats_b: dict, params: dict, power: float) -> dict:
    result = compare_counts(task_counts(stats_a), task_counts(stats_b), params, power)
    rates_a, rates_b = ({row["task"]: row["rate"] for row in stats["per_task"]} for stats in (stats_a, stats_b))
    shared = sorted(set(rates_a) & set(rates_b))
    return {
        "a": stats_a["setting"],
        "b": stats_b["setting"],
        "a_description": stats_a["description"],
        "b_description": stats_b["description"],
        **result,
        "per_task": [
            {"task": t, "rate_a": rates_a[t], "rate_b": rates_b[t], "difference": rates_b[t] - rates_a[t]}
            for t in shared
        ],
    }


def comparisons(stats: dict[str, dict], pairs, params: dict, power: float) -> dict:
    """comparisons.json: every requested pair, each p-value beside its Holm-adjusted one (the
    pairs of one run are one family: a paper reading several of them reads them together)."""
    compared = [compare(stats[a], stats[b], params, power) for a, b in requested_pairs(sorted(stats), pairs)]
    adjusted = holm([pair["p_value"] for pair in compared])
    family = sum(p is not None for p in adjusted)
    return {
        "confidence": params["confidence"],
        "multiple_comparisons": {"method": "Holm", "pairs_with_p_value": family, "text": HOLM.format(count=family)},
        "pairs": [pair | {"p_value_holm": p} for pair, p in zip(compared, adjusted)],
    }


def render_markdown(data: dict) -> str:
    pairs, confidence = data["pairs"], data["confidence"]
    shown = level(confidence)
    lines = [
        "# Paired comparisons on shared tasks",
        "",
        "Difference = mean over the tasks both settings ran of (pass rate of B − pass rate of A), in percentage "
        "points. The p-value is a two-sided within-task permutation test: the A/B labels of each task's "
        "trials are permuted within the task, which is exact whatever tries each setting ran (twice the "
        "smaller one-sided p). The permutation interval is that test inverted over a common shift of the "
        f"log-odds of passing (every shift it does not reject at {shown}, given as the mean difference of the "
        "task rates fitted under it), and it is the one to read: it excludes 0 exactly when p ≤ "
        f"{level(1 - confidence)}. The paired bootstrap and t intervals are shown beside it as spreads, not "
        "tests: with few shared tasks they exclude a true difference of 0 more often than that. Interval "
        "overlap and trial-level McNemar are not used: tries of one task are not independent.",
        "",
        f"Holm p: {data['multiple_comparisons']['text']}. Smallest possible p: the least p-value the test can "
        "give with these shared tasks and tries, whatever the results. Detectable: the difference found with "
        f"{pairs[0]['minimum_detectable_difference']['power'] * 100:g}% power at this run's shared tasks and "
        "tries (the permutation test simulated on each task's pooled pass rate, the two settings moved apart "
        "on the logit scale)."
        if pairs
        else "No pair of agent settings to compare.",
        "",
        f"| A | B | Shared tasks | Only A | Only B | Difference | {shown} interval (permutation) | "
        f"{shown} spread (paired bootstrap, not a test) | {shown} spread (paired t, not a test) | p-value | Holm p | "
        "Smallest possible p | Detectable |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for c in pairs:
        perm, boot, t = (c["intervals"][name] for name in ("permutation", "bootstrap", "t"))
        lines.append(
            f"| {cell(c['a_description'])} | {cell(c['b_description'])} | {c['shared']} | {c['only_in_a']} | "
            f"{c['only_in_b']} | {signed_pp(c['mean_difference'])} | "
            + " | ".join(f"{signed_pp(i['low'])} to {signed_pp(i['high'])}" for i in (perm, boot, t))
            + f" | {p_text(c['p_value'])} | {p_text(c['p_value_holm'])} | {p_text(c['smallest_p_value'])} | "
            f"{points(c['minimum_detectable_difference']['value'])} |"
        )
    if not pairs:
        lines.append("| — | — | | | | | | | | | | | |")
    for c in pairs:
        lines += ["", f"## {cell(c['a_description'])} (A) vs {cell(c['b_description'])} (B)", ""]
        if c.get("note"):
            lines += [c["note"] + ".", ""]
        if c.get("test"):
            lines += [f"p-value: {c['test']}.", ""]
        detectable = c["minimum_detectable_difference"]
        if detectable["reason"]:
            lines += [f"Detectable difference: none; {detectable['reason']}.", ""]
        if detectable.get("more"):
            lines += [more_data_sentence(detectable), ""]
        lines += ["| Task | A | B | B − A |", "| --- | ---: | ---: | ---: |"]
        lines += [
            f"| {cell(r['task'])} | {pct(r['rate_a'])} | {pct(r['rate_b'])} | {signed_pp(r['difference'])} |"
            for r in c["per_task"]
        ]
    return "\n".join(lines) + "\n"


def more_data_sentence(detectable: dict) -> str:
    """What a larger run would buy: the difference detected at twice the tasks and twice the tries."""
    tasks, tries = (
        "no difference" if value is None else points(value)
        for value in (detectable["more"]["twice_the_tasks"], detectable["more"]["twice_the_tries"])
    )
    return (
        f"A larger run: with twice the shared tasks the test would detect {tasks}, with twice the tries "
        f"{tries}, at {detectable['power'] * 100:g}% power."
    )


CSV_FIELDS = (
    "a,b,shared_tasks,only_a,only_b,mean_difference,permutation_low,permutation_high,bootstrap_low,"
    "bootstrap_high,t_low,t_high,p_value,p_value_holm,smallest_p_value,minimum_detectable_difference,"
    "confidence,test"
)


def render_csv(data: dict) -> str:
    rows = [CSV_FIELDS]
    for c in data["pairs"]:
        perm, boot, t = (c["intervals"][name] for name in ("permutation", "bootstrap", "t"))
        values = [c[key] for key in ("a", "b", "shared", "only_in_a", "only_in_b", "mean_difference")]
        values += [interval[side] for interval in (perm, boot, t) for side in ("low", "high")]
        values += [c["p_value"], c["p_value_holm"], c["smallest_p_value"], c["minimum_detectable_difference"]["value"]]
        values += [c["confidence"], c["test"] or ""]
        rows.append(
            ",".join("" if v is None else f'"{v}"' if isinstance(v, str) and "," in v else str(v) for v in values)
        )
    return "\n".join(rows) + "\n"
