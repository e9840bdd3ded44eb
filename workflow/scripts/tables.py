"""Rule tables: every table over the settings. The paired comparisons between agent settings
(results/comparisons/), the paper's tables of the settings and of those comparisons (Markdown,
CSV, LaTeX), results/index.md with results/exclusions.tsv, and results/trials.csv."""

from benchreport.compute.comparisons import agent_settings, comparisons, render_csv, render_markdown
from benchreport.pipeline.lineage import finish_job, start_job, write_for_rule
from benchreport.pipeline.outputs import load_json, write_json, write_text
from benchreport.present import paper, tables, trials_table
from benchreport.present.overview import combined_ledger, render_index, render_ledger_tsv

# what each output is made from, for its lineage record
MADE_FROM = {
    **dict.fromkeys(("comparisons_json", "comparisons_md", "comparisons_csv"), ("numbers",)),
    **dict.fromkeys(("paper_comparisons_md", "paper_comparisons_csv", "paper_comparisons_tex"), ("numbers",)),
    **dict.fromkeys(("settings_md", "settings_csv", "settings_tex"), ("summaries",)),
    **dict.fromkeys(("index", "exclusions"), ("summaries", "ledgers")),
    "trials": ("numbers", "trials"),
}

start_job(snakemake)
params, out = snakemake.params, snakemake.output

numbers = [load_json(path) for path in snakemake.input.numbers]
compared = comparisons(agent_settings(numbers), params.pairs, params.statistics, params.power)
write_json(out.comparisons_json, compared)
write_text(out.comparisons_md, render_markdown(compared))
write_text(out.comparisons_csv, render_csv(compared))

summaries = [load_json(path) for path in snakemake.input.summaries]
job_ledgers = [ledger for path in snakemake.input.ledgers for ledger in load_json(path)["jobs"].values()]
ledger = combined_ledger(job_ledgers, summaries)
write_text(out.index, render_index(summaries, job_ledgers, ledger))
write_text(out.exclusions, render_ledger_tsv(ledger))

rows = tables.setting_rows(summaries)
write_text(out.settings_md, paper.settings_markdown(rows, params.confidence))
write_text(out.settings_csv, paper.to_csv(paper.SETTINGS_CSV_FIELDS, rows))
write_text(out.settings_tex, paper.settings_latex(rows, params.confidence))
pairs = tables.comparison_rows(compared)
write_text(out.paper_comparisons_md, paper.comparisons_markdown(pairs, params.confidence))
write_text(out.paper_comparisons_csv, paper.to_csv(paper.COMPARISONS_CSV_FIELDS, pairs))
write_text(out.paper_comparisons_tex, paper.comparisons_latex(pairs, params.confidence))

settings = [
    (data["setting"], data["key"], load_json(path)) for data, path in zip(numbers, snakemake.input.trials, strict=True)
]
write_text(out.trials, trials_table.render_csv(settings))
write_for_rule(snakemake, made_from=MADE_FROM)
finish_job()
