rule stats:
    input:
        unpack(stats_inputs),
    output:
        stats="results/settings/{setting}/stats.json",
        lineage=lineage_of("results/settings/{setting}/stats.json"),
    log:
        "logs/stats/{setting}.log",
    priority: 3  # see rule figures (figures.smk)
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        jobs=setting_jobs,
        stats=config["statistics"],
        controls=controls_policy(),
        code=CODE["stats"],
    script:
        "../scripts/stats.py"
