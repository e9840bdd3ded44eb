rule paper:
    input:
        summaries=setting_summaries,
        comparisons="results/comparisons/comparisons.json",
    output:
        settings_md="results/paper/settings.md",
        settings_csv=report(
            "results/paper/settings.csv",
            caption="../report/settings_table.rst",
            category="Paper",
            subcategory="Tables",
            labels={"name": "settings compared", "format": "CSV"},
        ),
        settings_tex="results/paper/settings.tex",
        comparisons_md="results/paper/comparisons.md",
        comparisons_csv=report(
            "results/paper/comparisons.csv",
            caption="../report/comparisons_table.rst",
            category="Paper",
            subcategory="Tables",
            labels={"name": "paired comparisons", "format": "CSV"},
        ),
        comparisons_tex="results/paper/comparisons.tex",
        lineage_settings_md=lineage_of("results/paper/settings.md"),
        lineage_settings_csv=lineage_of("results/paper/settings.csv"),
        lineage_settings_tex=lineage_of("results/paper/settings.tex"),
        lineage_comparisons_md=lineage_of("results/paper/comparisons.md"),
        lineage_comparisons_csv=lineage_of("results/paper/comparisons.csv"),
        lineage_comparisons_tex=lineage_of("results/paper/comparisons.tex"),
    log:
        "logs/paper/all.log",
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        confidence=config["statistics"]["confidence"],
        code=CODE["paper"],
    script:
        "../scripts/paper.py"


# The figures are drawn from the settings' stats.json and need no comparison, so they start as soon
# as the numbers exist. report.html waits for the figures, the reports (through the overview) and
# the comparisons; on two cores it is ready soonest when the figures (the longest job) and the
# reports go first, then the comparisons, then the rest: priorities 2, 2, 1 and 0.
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
        "logs/paper/figures.log",
    priority: 2
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=1500,
    # the caption of cost.svg (workflow/report/cost.rst) names the level, seed and resamples
    # its cost interval was computed with (by rule stats, in the record)
    params:
        seed=config["statistics"]["seed"],
        resamples=config["statistics"]["resamples"],
        confidence=config["statistics"]["confidence"],
        code=CODE["figures"],
    script:
        "../scripts/figures.py"


rule html_report:
    input:
        summaries=setting_summaries,
        pages=setting_pages,
        comparisons="results/comparisons/comparisons.json",
        exclusions="results/exclusions.tsv",
        figures="results/paper/figures.json",
        forest_svg="results/paper/forest.svg",
        heatmap_svg="results/paper/heatmap.svg",
        cost_svg="results/paper/cost.svg",
    output:
        html=report(
            "results/report.html",
            caption="../report/report_html.rst",
            category="Paper",
            subcategory="Page",
            labels={"name": "all settings, one page", "format": "HTML"},
        ),
        lineage_html=lineage_of("results/report.html"),
    log:
        "logs/paper/html.log",
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=CODE["html"],
    script:
        "../scripts/html_report.py"
