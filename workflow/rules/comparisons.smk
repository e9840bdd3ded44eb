rule comparisons:
    input:
        unpack(comparison_inputs),
    output:
        json="results/comparisons/comparisons.json",
        markdown="results/comparisons/comparisons.md",
        csv="results/comparisons/comparisons.csv",
        lineage_json=lineage_of("results/comparisons/comparisons.json"),
        lineage_markdown=lineage_of("results/comparisons/comparisons.md"),
        lineage_csv=lineage_of("results/comparisons/comparisons.csv"),
    log:
        "logs/comparisons/all.log",
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
        code=CODE["comparisons"],
    script:
        "../scripts/comparisons.py"
