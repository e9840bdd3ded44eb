"""Rule html_report: results/report.html, one self-contained page over every setting."""

from pathlib import Path

from benchreport.pipeline.lineage import start_job, write_for_rule
from benchreport.pipeline.outputs import load_json, write_text
from benchreport.present.html_report import render_page

start_job(snakemake)


summaries = [load_json(path) for path in snakemake.input.summaries]
pages = {page["setting"]: page for page in map(load_json, snakemake.input.pages)}
comparisons = load_json(snakemake.input.comparisons)
ledger = Path(snakemake.input.exclusions).read_text(encoding="utf-8")
svgs = {name: Path(snakemake.input[f"{name}_svg"]).read_bytes() for name in ("forest", "heatmap", "cost")}
page = render_page(summaries, pages, comparisons, ledger, svgs, load_json(snakemake.input.figures))
write_text(snakemake.output.html, page)
write_for_rule(snakemake)
