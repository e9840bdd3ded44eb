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
