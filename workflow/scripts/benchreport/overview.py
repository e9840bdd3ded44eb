"""The run-level view: every setting, and the accounting that nothing was lost."""

from __future__ import annotations

from .render import cell, pct

LEDGER_COLUMNS = ("job", "folder", "file", "reason", "effect")


def accounting(ingests: list[dict]) -> list[dict]:
    """Per job folder: attempt folders found = counted in a report + left out, with the parts."""
    rows = []
    for ingest in ingests:
        trials = ingest["trials"]
        counted = sum(t["attempts"] for t in trials if t["outcome"] != "interrupted")
        interrupted = sum(t["attempts"] for t in trials if t["outcome"] == "interrupted")
        left_out = sum(1 for row in ingest["ledger"] if row["effect"].startswith("attempt left out"))
        rows.append(
            {
                "job": ingest["job"]["id"],
                "found": ingest["attempt_folders_found"],
                "in_reports": counted,
                "interrupted": interrupted,
                "left_out": left_out,
                "adds_up": ingest["attempt_folders_found"] == counted + interrupted + left_out,
            }
        )
    return rows


def ledger_rows(ingests: list[dict]) -> list[dict]:
    rows = []
    for ingest in ingests:
        rows.extend(ingest["ledger"])
        for trial in ingest["trials"]:
            if trial["outcome"] == "interrupted":
                for folder in trial["attempt_folders"]:
                    rows.append(
                        {
                            "job": trial["job"],
                            "folder": folder,
                            "file": f"{folder}/result.json",
                            "reason": "interrupted: config.json but no result.json (the attempt never finished)",
                            "effect": "trial left out of the pass rate",
                        }
                    )
    return sorted(rows, key=lambda row: tuple(row[column] for column in LEDGER_COLUMNS))


def render_ledger_tsv(rows: list[dict]) -> str:
    def field(value):
        return str(value).replace("\t", " ").replace("\n", " ")

    lines = ["\t".join(LEDGER_COLUMNS)]
    lines += ["\t".join(field(row[column]) for column in LEDGER_COLUMNS) for row in rows]
    return "\n".join(lines) + "\n"


def render_index(summaries: list[dict], ingests: list[dict]) -> str:
    counts = accounting(ingests)
    found = sum(row["found"] for row in counts)
    in_reports = sum(row["in_reports"] for row in counts)
    interrupted = sum(row["interrupted"] for row in counts)
    left_out = sum(row["left_out"] for row in counts)
    ledger = ledger_rows(ingests)
    lines = [
        "# benchreport: all settings",
        "",
        f"{len(ingests)} job folders, {found} attempt folders found: {in_reports} counted in a report, "
        f"{interrupted} interrupted and {left_out} unusable, both listed in exclusions.tsv "
        f"({'the counts add up' if found == in_reports + interrupted + left_out else 'THE COUNTS DO NOT ADD UP'}).",
        "",
        "| Setting | Tasks | Trials | Passed | Pass rate | 95% interval over tasks | Report |",
        "| --- | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for summary in sorted(summaries, key=lambda s: (s["settings"]["control"] or "", s["setting"])):
        interval = summary["intervals"]["over_tasks"]
        counts_row = summary["counts"]
        lines.append(
            f"| {cell(summary['description'])} | {counts_row['tasks']} | {counts_row['trials']} | {counts_row['passed']} | "
            f"{pct(summary['pass_rate']['value'])} | {pct(interval['low'])} to {pct(interval['high'])} | "
            f"[report](reports/{summary['setting']}/report.md) |"
        )
    lines += [
        "",
        "## Job folders",
        "",
        "| Job folder | Attempt folders | In reports | Interrupted | Unusable | Adds up |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in counts:
        lines.append(
            f"| {cell(row['job'])} | {row['found']} | {row['in_reports']} | {row['interrupted']} | {row['left_out']} | "
            f"{'yes' if row['adds_up'] else 'NO'} |"
        )
    lines += ["", "## What was left out", ""]
    if ledger:
        lines += ["| Job folder | File | Reason | Effect |", "| --- | --- | --- | --- |"]
        lines += [f"| {cell(r['job'])} | {cell(r['file'])} | {cell(r['reason'])} | {cell(r['effect'])} |" for r in ledger]
    else:
        lines.append("Nothing.")
    return "\n".join(lines) + "\n"
