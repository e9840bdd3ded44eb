"""Rule comparisons: paired comparisons between agent settings on their shared tasks."""

from benchreport.compute.comparisons import comparisons, render_csv, render_markdown
from benchreport.pipeline.lineage import start_job, write_for_rule
from benchreport.pipeline.outputs import load_json, write_json, write_text

start_job(snakemake)

stats = {}
for path in snakemake.input.stats:
    data = load_json(path)
    stats[data["setting"]] = data
result = comparisons(stats, snakemake.params.pairs, snakemake.params.statistics, snakemake.params.power)
write_json(snakemake.output.json, result)
write_text(snakemake.output.markdown, render_markdown(result))
write_text(snakemake.output.csv, render_csv(result))
write_for_rule(snakemake)
