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
            forest_svg=report(
                "results/paper/forest.svg",
                caption="../report/forest.rst",
                category="Paper",
                subcategory="Figures",
                labels={"name": "pass rate per setting", "format": "SVG"},
            ),
            forest_png=report(
                "results/paper/forest.png",
                caption="../report/forest.rst",
                category="Paper",
                subcategory="Figures",
                labels={"name": "pass rate per setting", "format": "PNG"},
            ),
            heatmap_svg=report(
                "results/paper/heatmap.svg",
                caption="../report/heatmap.rst",
                category="Paper",
                subcategory="Figures",
                labels={"name": "per-task pass fraction", "format": "SVG"},
            ),
            heatmap_png=report(
                "results/paper/heatmap.png",
                caption="../report/heatmap.rst",
                category="Paper",
                subcategory="Figures",
                labels={"name": "per-task pass fraction", "format": "PNG"},
            ),
            cost_svg=report(
                "results/paper/cost.svg",
                caption="../report/cost.rst",
                category="Paper",
                subcategory="Figures",
                labels={"name": "cost against pass rate", "format": "SVG"},
            ),
            cost_png=report(
                "results/paper/cost.png",
                caption="../report/cost.rst",
                category="Paper",
                subcategory="Figures",
                labels={"name": "cost against pass rate", "format": "PNG"},
            ),
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
