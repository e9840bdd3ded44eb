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
        "logs/html_report/all.log",
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=CODE["html_report"],
    script:
        "../scripts/html_report.py"
