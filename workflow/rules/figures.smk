# The figures are drawn from the settings' stats.json (rule report) and need no comparison.
# report.html waits for the figures, the reports (through the overview) and the comparisons; on
# two cores it is ready soonest when every setting's report goes first (the figures wait for all
# of them), then the figures (the longest job), then the comparisons, then the rest: priorities
# 3, 2, 1 and 0. The coverage designs, which the reports wait for, go before all of them (4).
rule figures:
    input:
        numbers=setting_numbers,
    output:
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
        lineage_figures=lineage_of("results/paper/figures.json"),
        lineage_forest_svg=lineage_of("results/paper/forest.svg"),
        lineage_forest_png=lineage_of("results/paper/forest.png"),
        lineage_heatmap_svg=lineage_of("results/paper/heatmap.svg"),
        lineage_heatmap_png=lineage_of("results/paper/heatmap.png"),
        lineage_cost_svg=lineage_of("results/paper/cost.svg"),
        lineage_cost_png=lineage_of("results/paper/cost.png"),
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
