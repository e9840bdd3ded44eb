# Every table over the settings, in one job, since each reads the same records: the paired
# comparisons, the paper's tables, the overview and its exclusion ledger, and every trial.
rule tables:
    input:
        unpack(table_inputs),
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
        ),
    log:
        "logs/tables/all.log",
    priority: 1  # see rule figures (figures.smk)
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        pairs=config["comparisons"]["pairs"],
        power=config["comparisons"]["power"],
        statistics=config["statistics"],
        confidence=config["statistics"]["confidence"],
        code=CODE["tables"],
    script:
        "../scripts/tables.py"
