"""paper/comparisons.md says, for each pair of settings, what a larger run would buy: the
difference the test would detect with twice the shared tasks and with twice the tries (the
sentence comparisons.md prints, from the same comparisons.json fields)."""

from __future__ import annotations

from benchreport.present import paper, tables

PAIR = {
    "a": "alpha",
    "b": "beta",
    "a_description": "alpha-agent",
    "b_description": "beta-agent",
    "shared": 10,
    "only_in_a": 0,
    "only_in_b": 0,
    "mean_difference": 0.1,
    "intervals": {
        "permutation": {"low": -0.1, "high": 0.3},
        "bootstrap": {"low": -0.05, "high": 0.25, "method": "paired bootstrap"},
        "t": {"low": -0.06, "high": 0.26, "method": "paired t"},
    },
    "p_value": 0.3,
    "p_value_holm": 0.3,
    "smallest_p_value": 0.002,
    "test": "within-task permutation",
    "minimum_detectable_difference": {
        "value": 0.31,
        "reason": None,
        "power": 0.8,
        "more": {"twice_the_tasks": 0.22, "twice_the_tries": 0.27},
    },
}


def test_each_pair_says_what_twice_the_tasks_or_tries_would_detect():
    text = paper.comparisons_markdown(tables.comparison_rows({"pairs": [PAIR]}), 0.95)
    assert (
        "alpha-agent vs beta-agent: A larger run: with twice the shared tasks the test would detect ±22 pp, "
        "with twice the tries ±27 pp, at 80% power."
    ) in text


def test_a_pair_without_a_detectable_difference_says_nothing_of_more_data():
    pair = PAIR | {"minimum_detectable_difference": {"value": None, "reason": "one shared task", "power": 0.8}}
    text = paper.comparisons_markdown(tables.comparison_rows({"pairs": [pair]}), 0.95)
    assert "A larger run" not in text
