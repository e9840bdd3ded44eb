rule overview:
    input:
        unpack(overview_inputs),
    output:
        index="results/index.md",
        exclusions="results/exclusions.tsv",
        lineage_index=lineage_of("results/index.md"),
        lineage_exclusions=lineage_of("results/exclusions.tsv"),
    log:
        "logs/overview/all.log",
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=CODE["overview"],
    script:
        "../scripts/overview.py"
