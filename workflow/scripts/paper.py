"""Rule paper: the comparison table over settings and the paired-comparisons table (Markdown, CSV, LaTeX)."""

from benchreport.pipeline.lineage import start_job, write_for_rule
from benchreport.pipeline.outputs import load_json, write_text
from benchreport.present import paper, tables

start_job(snakemake)


summaries = [load_json(path) for path in snakemake.input.summaries]
comparisons = load_json(snakemake.input.comparisons)
confidence = snakemake.params.confidence
out = snakemake.output

rows = tables.setting_rows(summaries)
write_text(out.settings_md, paper.settings_markdown(rows, confidence))
write_text(out.settings_csv, paper.settings_csv(rows))
write_text(out.settings_tex, paper.settings_latex(rows, confidence))

pairs = tables.comparison_rows(comparisons)
write_text(out.comparisons_md, paper.comparisons_markdown(pairs, confidence))
write_text(out.comparisons_csv, paper.comparisons_csv(pairs))
write_text(out.comparisons_tex, paper.comparisons_latex(pairs, confidence))
write_for_rule(snakemake)
