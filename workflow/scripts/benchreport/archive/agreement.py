"""Do the published outputs agree with each other? (`benchreport check <results>`)

Reads every output that prints a setting's numbers and compares each printed quantity with the
setting's result record; each finding names the file, the setting and what differs. Text is read
as a reader would: Markdown escapes and HTML markup are removed before a value is looked for.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from pathlib import Path

from ..present import sentences, tables
from ..present.present import interval_text, level, method, pct, usd
from ..present.writeup import passes


def _markdown_text(text: str) -> str:
    """Markdown as it reads: backslash escapes and entities resolved."""
    return html.unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text))


def _html_text(text: str) -> str:
    """An HTML page as it reads: tags removed, entities resolved, whitespace collapsed."""
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def _words(text: str) -> str:
    return " ".join(text.split())


class Checker:
    def __init__(self, results: Path):
        self.results = Path(results)
        self.findings: list[str] = []
        self.checked = 0

    def expect(self, condition: bool, where: str, setting: str, what: str) -> None:
        self.checked += 1
        if not condition:
            self.findings.append(f"{where}: {setting}: {what}")

    def contains(self, text: str, expected: str, where: str, setting: str, what: str) -> None:
        self.expect(_words(expected) in text, where, setting, f"{what}: expected {expected!r}")

    def read(self, relpath: str) -> str | None:
        path = self.results / relpath
        return path.read_text(encoding="utf-8") if path.is_file() else None


def _headline_cells(record: dict) -> tuple[str, str, str]:
    headline = record["headline"]
    return (
        pct(record["pass_rate"]["value"]),
        interval_text(headline.get("low"), headline.get("high")),
        method(headline.get("method")),
    )


def _check_setting_texts(check: Checker, setting: str, record: dict, page: str | None) -> None:
    rate, interval, method_name = _headline_cells(record)
    first = sentences.first_line(record)
    c = record["counts"]
    report = check.read(f"reports/{setting}/report.md")
    writeup = check.read(f"reports/{setting}/writeup.md")
    for where, text in (("report.md", report), ("writeup.md", writeup)):
        if text is None:
            check.expect(False, where, setting, "missing")
            continue
        text = _words(_markdown_text(text))
        check.contains(text, f"{level(record['confidence'])} interval", where, setting, "confidence level")
        check.contains(text, interval, where, setting, "headline interval")
        check.contains(text, method_name, where, setting, "headline method")
        check.contains(text, rate, where, setting, "pass rate")
        for row in record["excluded_by_controls"]:
            check.contains(text, row["task"], where, setting, "a task the controls left out")
        # the token total as sentences.token_total states it, never "0 tokens" where none was recorded
        tokens = record["usage"]["tokens_all_attempts"]
        check.contains(text, sentences.token_total(tokens), where, setting, "tokens")
        if tokens["total"] is None:
            check.expect(
                not re.search(r"\b0 tokens|Tokens: 0\b", text), where, setting, "tokens not recorded printed as 0"
            )
        spent = record["usage"]["cost_measures"]["spent"]["value_usd"]
        if spent is not None:
            check.contains(text, usd(spent), where, setting, "cost of every attempt")
        per_solved = record["usage"]["cost_measures"]["per_solved_task"]
        if per_solved["value_usd"] is not None:
            at_least = "" if record["usage"]["cost_complete"] else "at least "
            expected = f"cost per solved task {at_least}{usd(per_solved['value_usd'])}"
            check.contains(text, expected, where, setting, "cost per solved task")
        stray = set(re.findall(r"\b(\d{1,2}(?:\.\d+)?)% interval", text)) - {level(record["confidence"])[:-1]}
        check.expect(not stray, where, setting, f"an interval at another level: {sorted(stray)}")
    if report is not None:
        text = _words(_markdown_text(report))
        check.contains(text, first, "report.md", setting, "first line")
        trials = f"{c['trials']:,} trials" if c["trials"] != 1 else "1 trial"
        check.contains(text, trials, "report.md", setting, "trials")
        _check_task_controls(check, text, "report.md", setting, record)
    if writeup is not None:
        text = _words(_markdown_text(writeup))
        check.contains(text, passes(c), "writeup.md", setting, "passed of trials")
    if page is not None:
        check.contains(page, first, "report.html", setting, "first line")
        tokens = sentences.token_total(record["usage"]["tokens_all_attempts"])
        check.contains(page, tokens, "report.html", setting, "tokens")
        _check_task_controls(check, page, "report.html", setting, record)


def _check_task_controls(check: Checker, text: str, where: str, setting: str, record: dict) -> None:
    for row in record["per_task"] if record.get("controls") else []:
        check.contains(
            text, sentences.task_controls(row["controls"]), where, setting, f"controls verdict of {row['task']}"
        )


def _check_cards(check: Checker, setting: str, record: dict) -> None:
    def expect(condition: bool, what: str) -> None:
        check.expect(condition, "run-card.json", setting, what)

    card = json.loads(check.read(f"reports/{setting}/run-card.json") or "null")
    if card is None:
        expect(False, "missing")
        return
    headline, result = record["headline"], card["result"]
    for key in ("low", "high", "method", "level"):
        expect(result["headline"].get(key) == headline.get(key), f"headline {key}")
    expect(result["pass_rate"] == record["pass_rate"]["value"], "pass rate")
    expect(card["tasks_and_tries"]["trials"] == record["counts"]["trials"], "trials")
    usage = card.get("tokens_and_cost") or {}
    for key in ("tokens_all_attempts", "tokens_counted"):
        expect(usage.get(key) == record["usage"][key], key.replace("_", " "))
    measures = usage.get("cost_measures", {})
    for key, measure in record["usage"]["cost_measures"].items():
        expect(measures.get(key, {}).get("value_usd") == measure["value_usd"], f"cost measure {key}")
    if record.get("controls"):
        verdicts = card["controls"]["verdicts"]
        for task, entry in record["controls"]["per_task"].items():
            expect(verdicts.get(task, {}).get("verdict") == entry["verdict"], f"controls verdict of {task}")
    summary = json.loads(check.read(f"reports/{setting}/run-summary.json") or "null")
    if summary is not None:
        # BenchFlow's own rule: every finished trial, the tasks the controls left out included
        finished = record["counts"]["trials"] + record["counts"]["left_out_by_controls"]
        check.expect(summary["total"] == finished, "run-summary.json", setting, "finished trials (BenchFlow's total)")
        # BenchFlow's summary passes a full reward only; below 1.0 the record's passes are solve_threshold's
        if record["pass_rate"]["solve_threshold"] == 1.0:
            passed = record["counts"]["passed"] + sum(row["passed"] for row in record["excluded_by_controls"])
            check.expect(summary["passed"] == passed, "run-summary.json", setting, "passed (BenchFlow's count)")


def _check_tables(check: Checker, records: dict[str, dict]) -> None:
    index = check.read("index.md")
    by_setting = {row["setting"]: row for row in csv.DictReader(io.StringIO(check.read("paper/settings.csv") or ""))}
    settings_lines = _markdown_text(check.read("paper/settings.md") or "").splitlines()
    settings_md = _words(" ".join(settings_lines))
    settings_tex = check.read("paper/settings.tex") or ""
    figures = json.loads(check.read("paper/figures.json") or "{}")
    forest = {point["setting"]: point for point in figures.get("forest", [])}
    for setting, record in records.items():
        rate, interval, method_name = _headline_cells(record)
        if index is not None:
            line = _markdown_text(
                next((line for line in index.splitlines() if f"(reports/{setting}/report.md)" in line), "")
            )
            check.contains(
                line, f"| {rate} | {interval} ({method_name}) |", "index.md", setting, "pass rate and headline"
            )
            counts = f"| {record['counts']['trials']} | {record['counts']['passed']} |"
            check.contains(line, counts, "index.md", setting, "trials and passed")
        row = by_setting.get(setting)
        check.expect(row is not None, "paper/settings.csv", setting, "row missing")
        if row is not None:
            _check_csv_row(check, row, setting, record)
        headline = f"| {rate} | {interval} | {method_name} |"
        check.contains(settings_md, headline, "paper/settings.md", setting, "pass rate and headline")
        settings_row = next((line for line in settings_lines if line.startswith(f"| {record['description']} |")), "")
        tokens = f"| {tables.tokens_text(tables.setting_row(record))} |"
        check.contains(settings_row, tokens, "paper/settings.md", setting, "tokens")
        check.contains(settings_tex, interval.replace("%", r"\%"), "paper/settings.tex", setting, "headline interval")
        point = forest.get(setting)
        found = None if point is None else (point["rate"], point["low"], point["high"])
        expected = (record["pass_rate"]["value"], record["headline"].get("low"), record["headline"].get("high"))
        check.expect(found == expected, "paper/figures.json", setting, "forest point")
    if index is not None:
        _check_one_level(check, index, "index.md", records)


def _check_csv_row(check: Checker, row: dict, setting: str, record: dict) -> None:
    headline, usage = record["headline"], record["usage"]
    tokens, costs = usage["tokens_all_attempts"], usage["cost_measures"]
    for field, value, what in (
        ("interval_low", _csv_number(headline.get("low")), "interval low"),
        ("interval_high", _csv_number(headline.get("high")), "interval high"),
        ("interval_method", headline.get("method") or "", "method"),
        ("pass_rate", _csv_number(record["pass_rate"]["value"]), "pass rate"),
        ("trials", str(record["counts"]["trials"]), "trials"),
        ("cost_per_solved_usd", _csv_number(costs["per_solved_task"]["value_usd"]), "cost per solved task"),
        ("controls", sentences.controls_summary(record), "controls"),
        ("total_tokens", _csv_number(tokens["total"]), "total tokens"),
        ("trials_with_tokens", _csv_number(tokens["trials_recorded"]), "trials with tokens"),
        ("cost_usd", _csv_number(costs["spent"]["value_usd"]), "cost usd"),
        ("trials_with_cost", _csv_number(usage["trials_priced"]), "trials with cost"),
    ):
        check.expect(row[field] == value, "paper/settings.csv", setting, what)


def _check_one_level(check: Checker, text: str, where: str, records: dict[str, dict]) -> None:
    """Every interval `text` names is at the records' confidence level."""
    shown = level(next(iter(records.values()))["confidence"]) if records else None
    stray = set(re.findall(r"(\d{1,2}(?:\.\d+)?%) interval", text)) - {shown}
    check.expect(not stray, where, "-", f"an interval at another level: {sorted(stray)}")


def _csv_number(value) -> str:
    return "" if value is None else str(value)


def _check_ledger(check: Checker, records: dict[str, dict]) -> None:
    text = check.read("exclusions.tsv")
    if text is None:
        check.expect(False, "exclusions.tsv", "-", "missing")
        return
    rows = list(csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
    for setting, record in records.items():
        listed = sorted(row["file"] for row in rows if row["kind"] == "task" and row["setting"] == setting)
        expected = sorted(f"task {row['task']}" for row in record["excluded_by_controls"])
        check.expect(listed == expected, "exclusions.tsv", setting, f"tasks left out {listed} != {expected}")
        images = {row["file"] for row in record["left_out"] if row["kind"] == "image"}
        in_tsv = {row["file"] for row in rows if row["kind"] == "image" and setting in row["setting"].split(", ")}
        check.expect(images == in_tsv, "exclusions.tsv", setting, "images not inspected")


def _check_comparisons(check: Checker, records: dict[str, dict]) -> None:
    data = json.loads(check.read("comparisons/comparisons.json") or "null")
    if data is None:
        return
    for pair in data.get("pairs", []):
        for side in ("a", "b"):
            record = records.get(pair[side])
            if record is None:
                continue
            rates = {row["task"]: row["rate"] for row in record["per_task"]}
            for row in pair.get("per_task", []):
                matches = rates.get(row["task"]) == row[f"rate_{side}"]
                check.expect(matches, "comparisons.json", pair[side], f"rate of {row['task']}")
    markdown = check.read("comparisons/comparisons.md")
    if markdown is not None and records:
        _check_one_level(check, markdown, "comparisons.md", records)


def check(results: str | Path) -> tuple[int, list[str]]:
    """(how many comparisons were made, the disagreements found) over a results folder."""
    checker = Checker(Path(results))
    records: dict[str, dict] = {}
    for path in sorted((checker.results / "reports").glob("*/summary.json")):
        try:
            records[path.parent.name] = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as error:  # not JSON, or not UTF-8: the one error that ends the check
            raise ValueError(f"{path}: not a readable result record ({error})") from None
    checker.expect(bool(records), "reports/", "-", "no summary.json found")
    page_text = checker.read("report.html")
    page = _html_text(page_text) if page_text is not None else None
    for setting, record in records.items():
        _guarded(checker, setting, _check_setting_texts, checker, setting, record, page)
        _guarded(checker, setting, _check_cards, checker, setting, record)
    for whole_part in (_check_tables, _check_ledger, _check_comparisons):
        _guarded(checker, "-", whole_part, checker, records)
    return checker.checked, checker.findings


def _guarded(checker: Checker, setting: str, part, *args) -> None:
    """Run one part of the check; a record or output that lacks what it reads is a finding (an
    output from another version of benchreport, or a damaged one), not a crash."""
    try:
        part(*args)
    except (KeyError, TypeError, ValueError, AttributeError, StopIteration) as exc:
        checker.expect(
            False,
            part.__name__.removeprefix("_check_"),
            setting,
            f"could not be read as this version's result record ({type(exc).__name__}: {exc})",
        )
