"""Paper outputs: the tables over settings, the figures and results/report.html.

Unit tests of the pure functions (benchreport.present.paper, benchreport.present.figures), then one real
`snakemake` run on a small synthetic set of settings (three agents, an oracle and a nop, one task
named like an HTML injection) whose paper files are checked against the settings' summary.json.
That run is built once per session and shared with tests/test_browser.py.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from benchflow_synth import write_matrix
from benchreport.present import figures, paper, tables
from benchreport.present.present import interval_text, pct
from benchreport.record import figure_data
from benchreport.record.page import LISTED_ROWS, PAGE_TRIALS, page_trials
from conftest import PAPER_FILES, copy_workflow

# ---------------------------------------------------------------------------------------------
# hand-made summaries


TOKENS = ("input", "output", "cache_read", "cache_creation", "total")


def measure(key, value, n=0, interval=None):
    return {
        "key": key,
        "label": key.replace("_", " "),
        "numerator": "n",
        "denominator": "d" if n else "",
        "denominator_count": n,
        "numerator_usd": value,
        "value_usd": value,
        "interval": interval,
        "trials": "counted",
    }


def summary(
    setting,
    *,
    control=None,
    rate=0.5,
    low=0.25,
    high=0.75,
    method="bootstrap-percentile over tasks",
    tasks=None,
    cost=None,
    per_solved=None,
    tokens=1000,
    oracle=(3, 3),
    nop=(0, 3),
    failing=(),
    description=None,
):
    """A result record (summary.json) made by hand, with the fields the paper and page read."""
    tasks = tasks or {"t1": [1.0, 0.0], "t2": [1.0, 1.0]}
    trials, per_task = [], []
    for task, rewards in tasks.items():
        ids = []
        for index, value in enumerate(rewards, start=1):
            trials.append(
                {
                    "task": task,
                    "try": index,
                    "job": f"jobs/{setting}",
                    "folder": f"{task}__{index:08x}",
                    "attempts": 1,
                    "agent_execution": "completed",
                    "verifier": None,
                    "reward": value,
                    "outcome": "passed" if value == 1.0 else "failed",
                    "tokens": None if control else tokens,
                    "cost_usd": None if cost is None else cost / 4,
                    "seconds": 10.0,
                    "left_out": None,
                }
            )
            ids.append(f"jobs/{setting}/{task}__{index:08x}")
        passed = sum(value == 1.0 for value in rewards)
        per_task.append(
            {
                "task": task,
                "trials": len(rewards),
                "passed": passed,
                "rate": passed / len(rewards),
                "interval": {"method": "wilson", "low": 0.0, "high": 1.0, "level": 0.95},
                "rewards": rewards,
                "mean_reward": passed / len(rewards),
                "outcomes": [],
                "timed_out": 0,
                "task_digests": [],
                "trial_ids": ids,
                "controls": None,
                "mean_cost_usd": None if cost is None else cost / 4,
            }
        )
    n_trials = sum(len(rewards) for rewards in tasks.values())
    controls = None
    if not control:
        controls = {
            "oracle": {"trials": oracle[1], "passed": oracle[0]},
            "nop": {"trials": nop[1], "passed": nop[0]},
            "per_task": {},
            "tasks_without_control": [],
            "tasks_failing_controls": list(failing),
            "tasks_unverified": [],
            "tasks_holding": [row["task"] for row in per_task],
            "uncovered": [],
            "policy": {"on_failure": "exclude", "on_unverified": "keep"},
        }
    recorded = 0 if control or tokens is None else n_trials  # a control, as BenchFlow runs one, records no usage
    total = tokens * n_trials if recorded else None
    one_run = (
        None
        if cost is None
        else {
            "low": cost / 2 * 0.8,
            "high": cost / 2 * 1.2,
            "method": "percentile bootstrap",
            "level": 0.95,
            "seed": 5,
            "resamples": 100,
            "tasks_unpriced": [],
        }
    )
    counts = {
        "tasks": len(tasks),
        "trials": n_trials,
        "passed": sum(r["passed"] for r in per_task),
        "failed": 0,
        "errored": 0,
        "verifier_errored": 0,
        "unscored": 0,
        "with_error": 0,
        "timed_out": 0,
        "retried": 0,
        "attempts": n_trials,
        "interrupted_left_out": 0,
        "left_out_by_controls": 0,
        "tasks_left_out_by_controls": 0,
    }
    return {
        "setting": setting,
        "description": description or f"{setting} description",
        "settings": {"control": control, "agent": setting, "model": None, "served_models": {}},
        "counts": counts,
        "pass_rate": {"value": rate, "rule": "mean over tasks", "trials": "per_task", "solve_threshold": 1.0},
        "mean_reward": {
            "value": rate,
            "rule": "mean over tasks",
            "trials": "per_task",
            "interval": {"low": None, "high": None, "method": "t over task means", "level": 0.95},
        },
        "confidence": 0.95,
        "headline": {"method": method, "low": low, "high": high, "over": "tasks", "level": 0.95},
        "intervals": {
            "over_tasks": {"low": low, "high": high, "resamples": 100, "seed": 5},
            "over_trials": {"low": low, "high": high},
        },
        "methods": {},
        "solve_rates": None,
        "per_task": per_task,
        "usage": {
            "tokens_all_attempts": dict.fromkeys(TOKENS, total) | {"trials_recorded": recorded, "trials": n_trials},
            "tokens_counted": dict.fromkeys(TOKENS, total) | {"trials_recorded": recorded, "trials": n_trials},
            "attempts": n_trials,
            "trials": n_trials,
            "trials_priced": n_trials if cost else 0,
            "counted_trials": n_trials,
            "counted_trials_priced": n_trials if cost else 0,
            "cost_complete": True,
            "cost_is_lower_bound": False,
            "cost_measures": {
                "spent": measure("spent", cost),
                "counted": measure("counted", cost),
                "per_solved_task": measure("per_solved_task", per_solved, 2),
                "per_passed_trial": measure("per_passed_trial", per_solved, 3),
                "one_run": measure("one_run", None if cost is None else cost / 2, len(tasks), one_run),
            },
            "trial_seconds_min": 10.0,
            "trial_seconds_max": 10.0,
            "trial_minutes_all_attempts": 1.0,
            "usage_sources": {"unavailable": n_trials} if control else {"provider_response": n_trials},
        },
        "unpriced_reasons": [],
        "sampling": {},
        "trials_recording_requests": 0,
        "seeds": {"resampling_seed": 5, "generator": "numpy", "resamples": 100, "trial_seeds": []},
        "warnings": [],
        "mixed_settings": [],
        "left_out": [],
        "job_folders": [],
        "environment": [],
        "environment_refresh": "snakemake --cores 4 --forcerun inspect_image",
        "controls": controls,
        "excluded_by_controls": [],
        # not part of summary.json (the trials are in trials.json): what page_of gives page_trials
        "trials": trials,
    }


def hand_summaries():
    return [
        summary("oracle-x", control="oracle", rate=1.0, low=1.0, high=1.0),
        summary("zeta-agent", cost=8.0, per_solved=2.0, failing=("t9", "t8")),
        summary("nop-x", control="nop", rate=0.0, low=0.0, high=0.0),
        summary("alpha-agent", rate=0.75, low=0.5, high=1.0, cost=4.0, per_solved=1.0, oracle=(35, 36), nop=(1, 36)),
        summary("mid-agent", rate=0.25, low=0.0, high=0.5, tokens=0),
    ]


# ---------------------------------------------------------------------------------------------
# unit tests


def test_table_rows_agents_first_then_controls():
    rows = tables.setting_rows(hand_summaries())
    assert [row["setting"] for row in rows] == ["alpha-agent", "mid-agent", "zeta-agent", "oracle-x", "nop-x"]
    alpha = rows[0]
    assert alpha["controls"] == "oracle 35/36, nop 1/36; hold 2, fail 0, not verified 0"
    assert rows[2]["controls"] == "oracle 3/3, nop 0/3; hold 2, fail 2 (left out), not verified 0"
    assert rows[3]["controls"] == "control (oracle)"
    cells = tables.settings_cells(alpha)
    assert cells[:4] == ["alpha-agent description", "75%", "50% to 100%", "bootstrap-percentile over tasks"]
    assert cells[6:8] == ["4,000", "$1.00"]
    assert tables.settings_cells(rows[1])[7] == "n/a (no cost recorded)"
    assert tables.settings_cells(rows[3])[6] == "not recorded"  # a control with no usage at all
    assert tables.settings_cells(rows[1])[6] == "0"  # usage recorded, and no token used


def test_tokens_recorded_by_some_trials_say_how_many_and_none_is_not_zero():
    partial = summary("part-agent", tokens=100)
    partial["usage"]["tokens_all_attempts"]["trials_recorded"] = 3
    unrecorded = summary("blind-agent", tokens=None)
    rows = {row["setting"]: row for row in tables.setting_rows([partial, unrecorded])}
    assert tables.settings_cells(rows["part-agent"])[6] == "400 (3 of 4 trials)"
    assert tables.settings_cells(rows["blind-agent"])[6] == "not recorded"
    parsed = {
        row["setting"]: row
        for row in csv.DictReader(io.StringIO(paper.to_csv(paper.SETTINGS_CSV_FIELDS, list(rows.values()))))
    }
    assert (parsed["part-agent"]["total_tokens"], parsed["part-agent"]["trials_with_tokens"]) == ("400", "3")
    assert parsed["part-agent"]["trials_in_all"] == "4"
    assert (parsed["blind-agent"]["total_tokens"], parsed["blind-agent"]["trials_with_tokens"]) == ("", "0")


def test_latex_escaping_of_special_characters():
    assert paper.latex_escape("a_b & c% #1 $x {y}") == r"a\_b \& c\% \#1 \$x \{y\}"
    assert paper.latex_escape("back\\slash ~ ^") == r"back\textbackslash{}slash \textasciitilde{} \textasciicircum{}"
    assert paper.latex_escape("<script>") == r"\textless{}script\textgreater{}"
    assert paper.latex_escape(None) == "---"


def test_latex_table_is_booktabs_with_a_rule_before_the_controls():
    rows = tables.setting_rows(hand_summaries())
    tex = paper.settings_latex(rows, 0.95)
    lines = tex.splitlines()
    assert lines.count("\\toprule") == 1 and lines.count("\\bottomrule") == 1
    assert lines.count("\\midrule") == 2  # under the header, and between agents and controls
    body = lines[lines.index("\\midrule") + 1 : lines.index("\\bottomrule")]
    assert body.index("\\midrule") == 3  # after the three agent settings
    assert all(line.count(" & ") == 7 for line in body if line != "\\midrule")
    assert "95\\% intervals: bootstrap-percentile over tasks." in tex
    assert "\\$1.00" in tex and "50\\% to 100\\%" in tex


def test_latex_marks_differing_interval_methods():
    summaries = hand_summaries()
    summaries[1]["headline"]["method"] = "wilson_over task means"
    tex = paper.settings_latex(tables.setting_rows(summaries), 0.95)
    assert "\\textsuperscript{a}" in tex and "\\textsuperscript{b}" in tex
    assert "wilson\\_over task means" in tex


def test_csv_quoting_round_trips():
    rows = [
        {"setting": "s1", "description": 'agent "x", model y', "pass_rate": 0.5},
        {"setting": "s2", "description": "line\nbreak", "pass_rate": None},
    ]
    text = paper.to_csv(["setting", "description", "pass_rate"], rows)
    assert text.splitlines()[1] == 's1,"agent ""x"", model y",0.5'
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert parsed[0]["description"] == 'agent "x", model y'
    assert parsed[1]["description"] == "line\nbreak" and parsed[1]["pass_rate"] == ""


def test_markdown_cells_are_escaped():
    summaries = [summary("a", description="pipe | and <b>bold</b>")]
    text = paper.settings_markdown(tables.setting_rows(summaries), 0.95)
    assert "pipe \\| and &lt;b&gt;bold&lt;/b&gt;" in text


def test_pareto_frontier_hand_case():
    points = [
        {"setting": "A", "cost": 1.0, "rate": 0.5},
        {"setting": "B", "cost": 2.0, "rate": 0.7},
        {"setting": "C", "cost": 3.0, "rate": 0.6},  # B is cheaper and better
        {"setting": "D", "cost": 2.0, "rate": 0.4},  # A is cheaper and better
        {"setting": "E", "cost": 4.0, "rate": 0.9},
        {"setting": "F", "cost": 1.0, "rate": 0.5},  # ties A: neither beats the other
        {"setting": "G", "cost": 4.0, "rate": 0.8},  # E: same cost, better
    ]
    assert figure_data.pareto_frontier(points) == ["A", "F", "B", "E"]
    assert figure_data.pareto_frontier([]) == []


def test_cost_points_leave_out_settings_without_cost():
    data = figure_data.cost_points(hand_summaries())
    assert [p["setting"] for p in data["points"]] == ["alpha-agent", "zeta-agent"]
    assert [w["setting"] for w in data["without_cost"]] == ["mid-agent", "oracle-x", "nop-x"]
    # the record's cost of one run over the task set, as stats computed it
    assert data["points"][0]["cost"] == pytest.approx(2.0)
    assert data["frontier"] == ["alpha-agent"]


def test_figures_are_byte_identical_across_renders(monkeypatch):
    data = figure_data.figures_data(hand_summaries())
    first = figures.render_all(data)
    # a user's matplotlib style must not leak in
    import matplotlib

    monkeypatch.setitem(matplotlib.rcParams, "font.size", 23)
    monkeypatch.setitem(matplotlib.rcParams, "svg.hashsalt", None)
    second = figures.render_all(data)
    assert first == second
    for name, formats in first.items():
        svg = formats["svg"].decode()
        assert svg.startswith("<?xml") and "<svg" in svg, name
        assert "dc:date" not in svg and "Matplotlib v" not in svg, name
        assert formats["png"].startswith(b"\x89PNG"), name
        assert b"Software" not in formats["png"] and b"matplotlib" not in formats["png"].lower(), name


def many_tasks(n_tasks, tries):
    return {f"task-{i:04d}": [1.0 if (i * 7 + k) % 5 < i % 5 else 0.0 for k in range(tries)] for i in range(n_tasks)}


def test_heatmap_at_many_tasks_is_one_image_and_deterministic():
    tasks = many_tasks(250, 3)
    summaries = [
        summary("a-agent", tasks=tasks),
        summary("b-agent", tasks=dict(list(tasks.items())[:200])),
        summary("oracle-x", control="oracle", tasks=tasks),
    ]
    first = summaries[0]["per_task"][0]  # a hatched cell
    summaries[0]["excluded_by_controls"] = [
        {
            "task": first["task"],
            "reason": "controls failed",
            "trials": first["trials"],
            "passed": first["passed"],
            "rate": first["rate"],
        }
    ]
    summaries[0]["per_task"] = summaries[0]["per_task"][1:]
    data = figure_data.figures_data(summaries)
    assert len(data["heatmap"]["tasks"]) == 250 > tables.HEATMAP_NAMED_TASKS
    first = figures._render(figures.draw_heatmap, data)
    assert first == figures._render(figures.draw_heatmap, data)
    svg = first["svg"].decode()
    assert svg.count("<image") == 2  # the cells (one image, not a rectangle each) and the colour bar
    assert len(first["svg"]) < 150_000 and len(first["png"]) < 200_000


def page_of(summaries, pairs=()):
    from benchreport.present import html_report as html

    data = figure_data.figures_data(summaries)
    svgs = {name: b"<svg xmlns='http://www.w3.org/2000/svg'/>" for name in ("forest", "heatmap", "cost")}
    pages = {s["setting"]: page_trials(s["per_task"], s["trials"]) for s in summaries}
    return html.render_page(summaries, pages, {"pairs": list(pairs)}, "job\tfolder\tfile\treason\teffect\n", svgs, data)


def check_links(page):
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert len(ids) == len(set(ids))
    assert set(re.findall(r'href="#([^"]*)"', page)) <= set(ids)
    assert not re.findall(r'(?:src|href)="(?!#|data:)', page)  # nothing from elsewhere


def test_report_page_lists_every_trial_once_when_small():
    summaries = hand_summaries()
    page = page_of(summaries)
    check_links(page)
    for s in summaries:
        for trial in s["trials"]:
            assert page.count(f"{trial['job']}/{trial['folder']}") == 1
    assert "The trials of the first" not in page and 'class="heatmap-table"' in page


def test_report_page_is_bounded_at_many_tries():
    from benchreport.present import html_report as html

    tasks = many_tasks(250, 25)  # 6,250 trials per setting
    summaries = [summary("a-agent", tasks=tasks, cost=10.0), summary("b-agent", tasks=tasks)]
    none = {"oracle": None, "nop": None}
    summaries[0]["controls"]["per_task"] = {
        task: {"verdict": "not verified", "reasons": ["no oracle ran"]} | none for task in tasks
    }
    summaries[0]["controls"]["per_task"]["task-0249"] = {"verdict": "fails", "reasons": ["oracle passed 0 of 3"]} | none
    per_task = [
        {"task": task, "rate_a": 0.5, "rate_b": 0.5 + (i % 7) / 20, "difference": (i % 7) / 20}
        for i, task in enumerate(tasks)
    ]
    pair = {
        "a": "a-agent",
        "b": "b-agent",
        "a_description": "a",
        "b_description": "b",
        "shared": 250,
        "mean_difference": 0.1,
        "intervals": {},
        "p_value": 0.5,
        "per_task": per_task,
    }
    page = page_of(summaries, [pair])
    check_links(page)
    assert len(page) < 1_500_000
    for s in summaries:
        listed = [t for t in s["trials"] if f"{t['job']}/{t['folder']}" in page]
        assert 0 < len(listed) <= PAGE_TRIALS
        assert listed == s["trials"][: len(listed)]  # the first tasks, whole
        assert f"results/reports/{s['setting']}/trials.json" in page
        for task in tasks:  # every task keeps its row, the target of its numbers' links
            assert f'id="{html.task_anchor(s["setting"], task)}"' in page
    assert (
        "The trials of the first 20 of 250 tasks are listed once" in page
        and "The other 5,750 are not in this page" in page
    )
    assert 'class="heatmap-table"' not in page  # the per-task tables hold those numbers
    assert f"The {LISTED_ROWS} tasks of 250 where A and B differ most" in page
    assert "50 more tasks not listed here (not verified 50)" in page
    assert page.index("task-0249") < page.index("task-0000")  # the failed controls first


# ---------------------------------------------------------------------------------------------
# a real snakemake run on several settings

XSS_TASK = "<script>alert(1)</script>"
AGENTS = {
    "claude": {
        "agent": "claude-agent-acp",
        "model": "anthropic/claude-sonnet-4-5",
        "served_model": "claude-sonnet-4-5-20250929",
        "usage_source": "provider_response",
        "price_source": "litellm",
    },
    "codex": {
        "agent": "codex_acp",
        "model": "openai/gpt-5.1",
        "served_model": "gpt-5.1-2025-11-13",
        "usage_source": "provider_response",
        "price_source": "litellm",
    },
    "gemini": {
        "agent": "gemini-cli",
        "model": "gemini/gemini-2.5-pro",
        "served_model": None,
        "usage_source": "agent_native_acp",
        "price_source": None,
    },
}
CONTROLS = {
    "oracle": {
        "agent": "oracle",
        "agent_name": "oracle",
        "model": "none",
        "served_model": None,
        "usage_source": "unavailable",
        "price_source": None,
    },
    "nop": {
        "agent": "nop",
        "agent_name": "nop",
        "model": None,
        "served_model": None,
        "usage_source": "unavailable",
        "price_source": None,
    },
}
# per agent, per task: the outcome of each of two tries
GRID = {
    "claude": {"alpha": "PP", "beta": "PF", "gamma": "FF", "xss": "PF"},
    "codex": {"alpha": "PP", "beta": "PP", "gamma": "PF", "xss": "FF"},
    "gemini": {"alpha": "PF", "beta": "FF", "gamma": "FF", "xss": "PP"},
    "oracle": {"alpha": "PP", "beta": "PP", "gamma": "PF", "xss": "PP"},  # gamma fails its controls
    "nop": {"alpha": "EE", "beta": "EE", "gamma": "EE", "xss": "EE"},
}
KINDS = {"P": "passed", "F": "failed", "E": "suspected_api_error"}


def rename_task(jobs: Path, old: str, new: str) -> None:
    """BenchFlow takes a trial's task from result.json's task_name; give one task a hostile name."""
    for result in jobs.rglob(f"{old}__*/result.json"):
        data = json.loads(result.read_text())
        data["task_name"] = new
        result.write_text(json.dumps(data, indent=2))


def write_synth(jobs: Path) -> None:
    for index, (alias, grid) in enumerate(GRID.items()):
        setting = {**AGENTS.get(alias, {}), **CONTROLS.get(alias, {})}
        tries = [
            [{"task": task, "attempts": [{"kind": KINDS[outcomes[k]]}]} for task, outcomes in grid.items()]
            for k in range(2)
        ]
        write_matrix(
            jobs / alias,
            alias=alias,
            setting=setting,
            tries=tries,
            seed=100 + index,
            start=f"2026-11-2{index} 10:00:00",
        )
    rename_task(jobs, "xss", XSS_TASK)


TARGETS = ("all", "run_report")
_BUILT: dict[str, object] = {}


def built_workflow(tmp_path_factory):
    """The synthetic settings run through the workflow once per session (shared with
    tests/test_browser.py, which imports this)."""
    if "workflow" not in _BUILT:
        workflow = copy_workflow(tmp_path_factory.mktemp("paper") / "wf")
        write_synth(workflow.path / "jobs")
        workflow.run(*TARGETS, roots=["jobs"])
        _BUILT["workflow"] = workflow
    return _BUILT["workflow"]


@pytest.fixture
def built(tmp_path_factory):
    return built_workflow(tmp_path_factory)


def summaries_of(workflow) -> dict[str, dict]:
    found = {}
    for path in sorted((workflow.results / "reports").glob("*/summary.json")):
        data = json.loads(path.read_text())
        found[data["setting"]] = data
    return found


def test_trial_rows_live_in_trials_json_and_what_is_built_from_them_agrees(built):
    """summary.json carries no trial rows (the run-level stages read it); trials.json beside it
    has every finished trial once, and the per-task costs, the left-out tasks and the trials the
    page lists, computed where the rows are read, agree with the rows."""

    page = built.read("report.html")
    costs = {p["setting"]: p for p in json.loads(built.read("paper/figures.json"))["cost"]["points"]}
    found = summaries_of(built)
    assert costs and any(s["excluded_by_controls"] for s in found.values())  # both paths are exercised
    for setting, s in found.items():
        assert "trials" not in s
        rows = json.loads(built.read(f"reports/{setting}/trials.json"))
        assert rows["setting"] == setting
        trials = rows["trials"]
        counted = [t for t in trials if not t["left_out"]]
        assert len(counted) == s["counts"]["trials"]
        assert len(trials) - len(counted) == s["counts"]["left_out_by_controls"]
        assert len({(t["job"], t["folder"]) for t in trials}) == len(trials)
        for row in s["per_task"]:
            priced = [t["cost_usd"] for t in counted if t["task"] == row["task"] and t["cost_usd"] is not None]
            assert row["mean_cost_usd"] == (sum(priced) / len(priced) if priced else None)
        for entry in s["excluded_by_controls"]:
            mine = [t for t in trials if t["task"] == entry["task"]]
            assert all(t["left_out"] == entry["reason"] for t in mine)
            assert (entry["trials"], entry["passed"]) == (len(mine), sum(t["outcome"] == "passed" for t in mine))
        if setting in costs:
            assert costs[setting]["tasks_priced"] == sum(row["mean_cost_usd"] is not None for row in s["per_task"])
        listed = json.loads(built.read(f"settings/{setting}/page.json"))
        assert listed == {"setting": setting} | page_trials(s["per_task"], trials)
        for task_rows in listed["listed"].values():
            for row in task_rows:
                assert page.count(row["folder"]) == 1


def test_paper_files_agree_with_summaries(built):
    for name in PAPER_FILES + ["report.html"]:
        assert (built.results / name).stat().st_size > 0, name
    summaries = summaries_of(built)
    rows = list(csv.DictReader(io.StringIO(built.read("paper/settings.csv"))))
    assert len(rows) == len(summaries) == 5
    controls = [bool(summaries[row["setting"]]["settings"]["control"]) for row in rows]
    assert controls == sorted(controls)  # agents first, controls after
    assert [row["control"] for row in rows[3:]] == ["oracle", "nop"]
    markdown = built.read("paper/settings.md")
    for row in rows:
        s = summaries[row["setting"]]
        assert float(row["pass_rate"]) == s["pass_rate"]["value"]
        assert float(row["interval_low"]) == s["headline"]["low"]
        assert float(row["interval_high"]) == s["headline"]["high"]
        assert row["interval_method"] == s["headline"]["method"]
        assert int(row["tasks"]) == s["counts"]["tasks"] and int(row["trials"]) == s["counts"]["trials"]
        measures = s["usage"]["cost_measures"]
        if measures["spent"]["value_usd"] is None:
            assert row["cost_usd"] == "" and row["cost_per_solved_usd"] == ""
        else:
            assert float(row["cost_per_solved_usd"]) == measures["per_solved_task"]["value_usd"]
        if not s["settings"]["control"]:
            assert int(row["total_tokens"]) == s["usage"]["tokens_all_attempts"]["total"]
            left_out = len(s["excluded_by_controls"])
            controls = s["controls"]
            assert row["controls"].startswith(
                f"oracle {controls['oracle']['passed']}/{controls['oracle']['trials']}, "
                f"nop {controls['nop']['passed']}/{controls['nop']['trials']}; hold {len(controls['tasks_holding'])}, "
                f"fail {left_out} (left out)"
            )
            assert left_out == 1  # gamma: the oracle failed one of its tries
        line = next(line for line in markdown.splitlines() if line.startswith(f"| {s['description']} |"))
        assert (
            f"| {pct(s['pass_rate']['value'])} | {interval_text(s['headline']['low'], s['headline']['high'])} |" in line
        )
    tex = built.read("paper/settings.tex")
    assert "\\toprule" in tex and "\\bottomrule" in tex and "codex\\_acp on openai/gpt-5.1" in tex

    comparisons = json.loads(built.read("comparisons/comparisons.json"))["pairs"]
    pairs = list(csv.DictReader(io.StringIO(built.read("paper/comparisons.csv"))))
    assert len(pairs) == len(comparisons) == 3
    for row, pair in zip(pairs, comparisons):
        assert (row["a"], row["b"]) == (pair["a"], pair["b"])
        assert float(row["mean_difference"]) == pair["mean_difference"]
        assert float(row["bootstrap_low"]) == pair["intervals"]["bootstrap"]["low"]
        assert float(row["p_value"]) == pair["p_value"]
    assert built.read("paper/comparisons.tex").count(" \\\\\n") == 1 + 3 + 2  # header, pairs, notes

    data = json.loads(built.read("paper/figures.json"))
    assert [w["description"] for w in data["cost"]["without_cost"]][0].startswith("gemini-cli")
    assert len(data["cost"]["points"]) == 2 and data["cost"]["frontier"]
    assert XSS_TASK in data["heatmap"]["tasks"]


def test_figures_drawn_from_stats_say_what_the_summaries_say(built):
    """The figures are drawn from each setting's stats.json, not its summary.json: the numbers
    behind the figures are the same from either."""
    from benchreport.pipeline.outputs import dump_json

    data = json.loads(built.read("paper/figures.json"))
    numbers = [json.loads(path.read_text()) for path in sorted((built.results / "settings").glob("*/stats.json"))]
    summaries = list(summaries_of(built).values())
    assert len(numbers) == len(summaries) == 5 and all("settings" not in n for n in numbers)
    from_numbers = json.loads(dump_json(figure_data.figures_data(numbers)))
    from_summaries = json.loads(dump_json(figure_data.figures_data(summaries)))
    assert from_numbers == from_summaries == data
    assert [row["control"] for row in data["heatmap"]["rows"]][-2:] == ["oracle", "nop"]


def test_one_job_writes_a_settings_files_and_the_stages_after_it_read_only_the_numbers(built):
    """Rule report writes a setting's numbers (stats.json) and its rows (trials.json), which hold no
    key in common but the setting's id, and everything rendered from them, in one job from the
    setting's ingests; the figures and the comparisons read stats.json alone."""
    lineage = built.results / "lineage"
    for path in sorted((built.results / "settings").glob("*/stats.json")):
        setting = path.parent.name
        numbers = json.loads(path.read_text())
        rows = json.loads(built.read(f"reports/{setting}/trials.json"))
        assert set(numbers) & set(rows) == {"setting"}
        # the numbers name their trials by id only: no trial row is in stats.json
        assert "agent_execution" not in json.dumps(numbers) and "benchflow_bucket" not in json.dumps(numbers)
        records = [
            json.loads((lineage / f"{name}.json").read_text())
            for name in (
                f"settings/{setting}/stats.json",
                f"reports/{setting}/trials.json",
                f"reports/{setting}/summary.json",
            )
        ]
        assert {record["rule"] for record in records} == {"report"}
        inputs = [{e["path"] for e in record["inputs"]} for record in records]
        assert inputs[0] == inputs[1] == inputs[2] and any("/ingest/" in path for path in inputs[0])
    for output in ("paper/figures.json", "comparisons/comparisons.json"):
        inputs = {e["path"] for e in json.loads((lineage / f"{output}.json").read_text())["inputs"]}
        assert inputs and all(path.endswith("/stats.json") for path in inputs), output


def test_two_runs_give_identical_paper_files(built):
    before = {name: (built.results / name).read_bytes() for name in PAPER_FILES + ["report.html"]}
    built.run(*TARGETS, "--forcerun", "run_report", roots=["jobs"])
    after = {name: (built.results / name).read_bytes() for name in PAPER_FILES + ["report.html"]}
    assert before == after


def test_snakemake_report_has_the_paper_category(built):
    target = built.path / "snakemake-report.html"
    built.run("--report", str(target), *TARGETS, roots=["jobs"])
    text = target.read_text(encoding="utf-8", errors="replace")
    assert target.stat().st_size > 10_000
    assert '"Paper"' in text and "settings compared" in text


def test_the_pages_settings_table_states_the_pass_rule(built):
    """report.html's table over settings says by which rule its pass rates were counted, as the
    paper tables do."""
    page = built.read("report.html")
    assert "fraction of passing trials (pass = reward ≥ 1.0). Interval: the setting" in page
