"""Rule comparisons: paired comparisons between agent settings on their shared tasks."""

from benchreport import rulejob
from benchreport.compare import compare, render_csv, render_markdown, requested_pairs
from benchreport.files import dump_json, load_json, write_text
from benchreport.lineage import write_for_rule

rulejob.start(snakemake)

stats = {}
for path in snakemake.input.stats:
    data = load_json(path)
    stats[data["setting"]] = data
pairs = requested_pairs(sorted(stats), snakemake.params.pairs)
comparisons = [compare(stats[a], stats[b], snakemake.params.statistics) for a, b in pairs]
write_text(snakemake.output.json, dump_json({"pairs": comparisons}))
write_text(snakemake.output.markdown, render_markdown(comparisons, snakemake.params.statistics["confidence"]))
write_text(snakemake.output.csv, render_csv(comparisons))
write_for_rule(snakemake, "compare")
