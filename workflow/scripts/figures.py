"""Rule figures: forest, heatmap and cost figures (SVG and PNG) and the numbers behind them."""

from pathlib import Path

from benchreport.pipeline.lineage import start_job, write_for_rule
from benchreport.pipeline.outputs import load_json, write_json
from benchreport.present import figures
from benchreport.record import figure_data

start_job(snakemake)


numbers = [load_json(path) for path in snakemake.input.numbers]  # each setting's stats.json
data = figure_data.figures_data(numbers)
write_json(snakemake.output.figures, data)
for name, formats in figures.render_all(data).items():
    for fmt, content in formats.items():
        Path(snakemake.output[f"{name}_{fmt}"]).write_bytes(content)
write_for_rule(snakemake)
