# The figures are drawn from the settings' stats.json (rule report) and need no table.
# report.html waits for the figures and the tables; on two cores it is ready soonest when every
# setting's report goes first (the figures and the tables wait for all of them), then the figures
# (the longest job), then the tables: priorities 3, 2 and 1. The coverage designs, which the
# reports wait for, go before all of them (4).
rule figures:
    input:
        numbers=setting_numbers,
    output:
        **with_lineage(
            figures="results/paper/figures.json",
            forest_svg=paper_figure("forest", "svg", "pass rate per setting"),
            forest_png=paper_figure("forest", "png", "pass rate per setting"),
            heatmap_svg=paper_figure("heatmap", "svg", "per-task pass fraction"),
            heatmap_png=paper_figure("heatmap", "png", "per-task pass fraction"),
            cost_svg=paper_figure("cost", "svg", "cost against pass rate"),
            cost_png=paper_figure("cost", "png", "cost against pass rate"),
        ),
    log:
        "logs/figures/all.log",
    priority: 2
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=1500,
    # the caption of cost.svg (workflow/report/cost.rst) names the level, seed and resamples
    # its cost interval was computed with (by rule report, in the record)
    params:
        seed=config["statistics"]["seed"],
        resamples=config["statistics"]["resamples"],
        confidence=config["statistics"]["confidence"],
        code=CODE["figures"],
    script:
        "../scripts/figures.py"
