rule stats:
    input:
        unpack(stats_inputs),
    output:
        stats="results/settings/{setting}/stats.json",
        lineage=lineage_of("results/settings/{setting}/stats.json"),
    log:
        "logs/stats/{setting}.log",
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        stats=config["statistics"],
        failed_control=config["controls"]["on_failure"],
        code=CODE["stats"],
    script:
        "../scripts/stats.py"
