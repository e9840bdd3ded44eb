rule coverage_grid:
    output:
        grid="results/coverage/{shape}.json",
        lineage=lineage_of("results/coverage/{shape}.json"),
    log:
        "logs/coverage/{shape}.log",
    wildcard_constraints:
        # tasks x tries groups, e.g. 10x3 or 4x3+6x4 (benchreport.shapes)
        shape=r"[1-9][0-9]*x[1-9][0-9]*(\+[1-9][0-9]*x[1-9][0-9]*)*",
    conda:
        "../envs/benchreport.yaml"
    # the design's families and blocks share the threads; stats jobs wait for it, so it may take them all
    threads: 8
    resources:
        mem_mb=lambda wildcards, threads: shapes.memory_mb(wildcards.shape, threads),
    params:
        seed=config["statistics"]["seed"],
        simulations=config["statistics"]["coverage_simulations"],
        confidence=config["statistics"]["confidence"],
        code=CODE["coverage"],
    script:
        "../scripts/coverage_grid.py"


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
        controls=controls_policy(),
        code=CODE["stats"],
    script:
        "../scripts/stats.py"


# The setting's trial rows (trials.json, published as they are) and what its run card counts from
# them (card-parts.json); report reads both, later stages neither. A job of its own beside stats,
# from the same ingests, so that the figures and the comparisons, which read only the numbers,
# start as soon as the numbers are written.
rule trial_rows:
    input:
        trials=setting_ingests,
    output:
        trials="results/reports/{setting}/trials.json",
        card="results/settings/{setting}/card-parts.json",
        lineage_trials=lineage_of("results/reports/{setting}/trials.json"),
        lineage_card=lineage_of("results/settings/{setting}/card-parts.json"),
    log:
        "logs/trial_rows/{setting}.log",
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        controls=controls_policy(),
        benchmark_version=config["benchmark_version"],
        gate=config["run_summary_gate"],
        code=CODE["trial_rows"],
    script:
        "../scripts/trial_rows.py"
