rule coverage_grid:
    output:
        grid="results/coverage/{tasks}x{tries}.json",
        lineage=lineage_of("results/coverage/{tasks}x{tries}.json"),
    log:
        "logs/coverage/{tasks}x{tries}.log",
    wildcard_constraints:
        tasks="[1-9][0-9]*",
        tries="[1-9][0-9]*",
    conda:
        "../envs/benchreport.yaml"
    # the grid's 15 cells share the threads; stats jobs wait for the grid, so it may take them all
    threads: 8
    resources:
        mem_mb=lambda wildcards, threads: coverage_shapes.memory_mb(
            int(wildcards.tasks), config["statistics"]["coverage_simulations"], threads
        ),
    params:
        seed=config["statistics"]["seed"],
        simulations=config["statistics"]["coverage_simulations"],
        confidence=config["statistics"]["confidence"],
        # None: the exact bootstrap distribution (statistics.resamples is for the real data)
        resamples=None,
        code=CODE["coverage"],
    script:
        "../scripts/coverage_grid.py"


rule stats:
    input:
        unpack(stats_inputs),
    output:
        stats="results/settings/{setting}/stats.json",
        # the setting's trial rows, published as they are; report reads them, later stages do not
        trials="results/reports/{setting}/trials.json",
        lineage=lineage_of("results/settings/{setting}/stats.json"),
        lineage_trials=lineage_of("results/reports/{setting}/trials.json"),
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
        benchmark_version=config["benchmark_version"],
        gate=config["run_summary_gate"],
        code=CODE["stats"],
    script:
        "../scripts/stats.py"
