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
