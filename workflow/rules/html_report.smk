rule html_report:
    input:
        summaries=setting_summaries,
        pages=setting_pages,
        comparisons=rules.tables.output.comparisons_json,
        exclusions=rules.tables.output.exclusions,
        figures=rules.figures.output.figures,
        forest_svg=rules.figures.output.forest_svg,
        heatmap_svg=rules.figures.output.heatmap_svg,
        cost_svg=rules.figures.output.cost_svg,
    output:
        **with_lineage(
            html=in_report(
                "results/report.html", "report_html", "Page", "all settings, one page"
            ),
        ),
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
