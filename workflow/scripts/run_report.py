"""Rule run_report: everything over the settings. The paired comparisons between agent settings
(results/comparisons/), the paper's tables of the settings and of those comparisons (Markdown,
CSV, LaTeX) and its figures (SVG, PNG, and the numbers behind them), results/index.md with
results/exclusions.tsv, results/trials.csv, and results/report.html, one self-contained page over
every setting."""

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from benchreport.compute.comparisons import agent_settings, comparisons, render_csv, render_markdown
from benchreport.pipeline.lineage import finish_job, start_job, write_for_rule
from benchreport.pipeline.outputs import load_json, write_json, write_text
from benchreport.present import figures, paper, tables, trials_table
from benchreport.present.html_report import render_page
from benchreport.present.overview import combined_ledger, render_index, render_ledger_tsv
from benchreport.record.figure_data import figures_data

FIGURES = ("forest", "heatmap", "cost")
# what each output is made from, for its lineage record
MADE_FROM = {
    **dict.fromkeys(("comparisons_json", "comparisons_md", "comparisons_csv"), ("numbers",)),
    **dict.fromkeys(("paper_comparisons_md", "paper_comparisons_csv", "paper_comparisons_tex"), ("numbers",)),
    **dict.fromkeys(("settings_md", "settings_csv", "settings_tex"), ("summaries",)),
    **dict.fromkeys(("index", "exclusions"), ("summaries", "ledgers")),
    "trials": ("numbers", "trials"),
    **dict.fromkeys(("figures", *(f"{name}_{fmt}" for name in FIGURES for fmt in ("svg", "png"))), ("numbers",)),
    "html": ("numbers", "summaries", "pages", "ledgers"),
}

start_job(snakemake)
params, out = snakemake.params, snakemake.output

numbers = [load_json(path) for path in snakemake.input.numbers]
data = figures_data(numbers)
write_json(out.figures, data)
# drawn in a second process, when the job has a second thread, while the tables are made
pool = ProcessPoolExecutor(1) if snakemake.threads > 1 else None
drawn = pool.submit(figures.render_all, data) if pool else None

compared = comparisons(agent_settings(numbers), params.pairs, params.statistics, params.power)
write_json(out.comparisons_json, compared)
write_text(out.comparisons_md, render_markdown(compared))
write_text(out.comparisons_csv, render_csv(compared))

summaries = [load_json(path) for path in snakemake.input.summaries]
job_ledgers = [ledger for path in snakemake.input.ledgers for ledger in load_json(path)["jobs"].values()]
ledger = combined_ledger(job_ledgers, summaries)
write_text(out.index, render_index(summaries, job_ledgers, ledger))
ledger_tsv = render_ledger_tsv(ledger)
write_text(out.exclusions, ledger_tsv)

rows = tables.setting_rows(summaries)
write_text(out.settings_md, paper.settings_markdown(rows, params.confidence))
write_text(out.settings_csv, paper.to_csv(paper.SETTINGS_CSV_FIELDS, rows))
write_text(out.settings_tex, paper.settings_latex(rows, params.confidence))
pairs = tables.comparison_rows(compared)
write_text(out.paper_comparisons_md, paper.comparisons_markdown(pairs, params.confidence))
write_text(out.paper_comparisons_csv, paper.to_csv(paper.COMPARISONS_CSV_FIELDS, pairs))
write_text(out.paper_comparisons_tex, paper.comparisons_latex(pairs, params.confidence))

settings = [
    (number["setting"], number["key"], load_json(path))
    for number, path in zip(numbers, snakemake.input.trials, strict=True)
]
write_text(out.trials, trials_table.render_csv(settings))

rendered = drawn.result() if drawn else figures.render_all(data)
if pool:
    pool.shutdown()
for name, formats in rendered.items():
    for fmt, content in formats.items():
        Path(out[f"{name}_{fmt}"]).write_bytes(content)
pages = {page["setting"]: page for page in map(load_json, snakemake.input.pages)}
svgs = {name: rendered[name]["svg"] for name in FIGURES}
write_text(out.html, render_page(summaries, pages, compared, ledger_tsv, svgs, data))
write_for_rule(snakemake, made_from=MADE_FROM)
finish_job()
