rule coverage_design:
    output:
        grid="results/coverage/{shape}.json",
        lineage=lineage_of("results/coverage/{shape}.json"),
    log:
        "logs/coverage_design/{shape}.log",
    wildcard_constraints:
        # tasks x tries groups, e.g. 10x3 or 4x3+6x4 (benchreport.shapes)
        shape=r"[1-9][0-9]*x[1-9][0-9]*(\+[1-9][0-9]*x[1-9][0-9]*)*",
    # the stats jobs wait for it: started before them and the jobs that wait for nothing
    priority: 4
    conda:
        "../envs/benchreport.yaml"
    threads: coverage_threads
    resources:
        mem_mb=lambda wildcards, threads: shapes.memory_mb(wildcards.shape, threads),
    params:
        **runner_params(
            seed=config["statistics"]["seed"],
            simulations=config["statistics"]["coverage_simulations"],
            confidence=config["statistics"]["confidence"],
            code=CODE["coverage_design"],
        ),
    # BLAS on one thread, whatever the job's threads (Snakemake sets the *_NUM_THREADS variables
    # from them, and --cores caps those): a BLAS on several threads sums in another order, and
    # the design would move in its last bits with --cores. The job's threads share the design's
    # families and blocks (benchreport.coverage_design, numpy releases the GIL), and the fork
    # server serves a job of two threads (at 10,000 trials, one design: 0.78 -> 0.65-0.68 s).
    shell:
        run_script("coverage_design", one_blas_thread=True)
