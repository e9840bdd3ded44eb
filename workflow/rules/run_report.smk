# Everything over the settings, in one job, since each part reads the same records: the paired
# comparisons, the paper's tables and figures, the overview and its exclusion ledger, every
# trial, and report.html over all of them.
rule run_report:
    input:
        unpack(run_report_inputs),
    output:
        **with_lineage(
            comparisons_json="results/comparisons/comparisons.json",
            comparisons_md="results/comparisons/comparisons.md",
            comparisons_csv="results/comparisons/comparisons.csv",
            index="results/index.md",
            exclusions="results/exclusions.tsv",
            trials="results/trials.csv",
            settings_md="results/paper/settings.md",
            settings_csv=in_report(
                "results/paper/settings.csv",
                "settings_table",
                "Tables",
                "settings compared",
            ),
            settings_tex="results/paper/settings.tex",
            paper_comparisons_md="results/paper/comparisons.md",
            paper_comparisons_csv=in_report(
                "results/paper/comparisons.csv",
                "comparisons_table",
                "Tables",
                "paired comparisons",
            ),
            paper_comparisons_tex="results/paper/comparisons.tex",
            figures="results/paper/figures.json",
            forest_svg=paper_figure("forest", "svg", "pass rate per setting"),
            forest_png=paper_figure("forest", "png", "pass rate per setting"),
            heatmap_svg=paper_figure("heatmap", "svg", "per-task pass fraction"),
            heatmap_png=paper_figure("heatmap", "png", "per-task pass fraction"),
            cost_svg=paper_figure("cost", "svg", "cost against pass rate"),
            cost_png=paper_figure("cost", "png", "cost against pass rate"),
            html=in_report(
                "results/report.html", "report_html", "Page", "all settings, one page"
            ),
        ),
    log:
        "logs/run_report/all.log",
    conda:
        "../envs/benchreport.yaml"
    # the figures are drawn on a second thread while the tables are made
    threads: 2
    resources:
        mem_mb=2000,
    params:
        pairs=config["comparisons"]["pairs"],
        power=config["comparisons"]["power"],
        statistics=config["statistics"],
        # the captions (workflow/report/*.rst) name the level, and the cost figure's seed and
        # resamples (its interval computed by rule report, in the record)
        confidence=config["statistics"]["confidence"],
        seed=config["statistics"]["seed"],
        resamples=config["statistics"]["resamples"],
        code=CODE["run_report"],
    script:
        "../scripts/run_report.py"
