"""Rule report: one setting, in one job. Its numbers (stats.json) and trial rows (trials.json)
from the ingested job folders it draws on; then its result record (summary.json) and everything
rendered from it alone: report.md, writeup.md, run-card.json, run-summary.json, and the trials
report.html lists of it (page.json)."""

from benchreport.pipeline.lineage import finish_job, start_job, write_for_rule
from benchreport.pipeline.outputs import load_json, write_json, write_text
from benchreport.read.settings import number_ingest_tries
from benchreport.read.trial import load_ingests
from benchreport.record.page import page_trials
from benchreport.record.report import (
    environment_rows,
    render_report,
    render_summary,
    render_writeup,
    setting_record,
)
from benchreport.record.trial_rows import TRIAL_FIELDS, TRIAL_PARTS, setting_parts

start_job(snakemake)
params, output = snakemake.params, snakemake.output


def grid_for(profile):
    """The coverage design rule coverage_design computed at the shape the workflow planned for this
    setting (`shapes.planned_profile`); setting_stats checks it is the one its headline needs."""
    grid = snakemake.input.get("coverage")
    if grid is None:
        raise ValueError(
            f"no coverage design was planned for {snakemake.wildcards.setting}, whose tasks have "
            f"the tries profile {profile}: the plan found no scored task (a bug)"
        )
    return load_json(grid)


ingests = number_ingest_tries(load_ingests(snakemake.input.trials, TRIAL_FIELDS, TRIAL_PARTS, params.jobs))
numbers, rows, parts = setting_parts(
    snakemake.wildcards.setting,
    ingests,
    params.statistics | {"controls": params.controls},
    grid_for,
    benchmark_config=params.benchmark_version,
    gate=params.gate,
)
del ingests  # all that follows is built from the numbers, the rows and the card parts
write_json(output.stats, numbers)
write_json(output.trials, rows)
records = {path: load_json(path) for path in snakemake.input.get("images", [])}
environment = environment_rows(params.task_images, records, numbers["per_task"] + numbers["excluded_by_controls"])
record, card = setting_record(numbers, parts, rows, environment)
write_text(output.summary, render_summary(record))
write_text(output.report, render_report(record, card, rows))
write_text(output.writeup, render_writeup(record, card))
write_json(output.run_card, card)
write_json(output.run_summary, card["run_summary"])
write_json(output.page, {"setting": numbers["setting"]} | page_trials(numbers["per_task"], rows["trials"]))
write_for_rule(snakemake)
finish_job()
