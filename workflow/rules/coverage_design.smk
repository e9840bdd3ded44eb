rule coverage_design:
    output:
        **with_lineage(
            grid="results/coverage/{shape}.json",
        ),
    log:
        "logs/coverage_design/{shape}.log",
    wildcard_constraints:
        # tasks x tries groups, e.g. 10x3 or 4x3+6x4 (benchreport.compute.shapes)
        shape=r"[1-9][0-9]*x[1-9][0-9]*(\+[1-9][0-9]*x[1-9][0-9]*)*",
    # the stats jobs wait for it: started before them and the jobs that wait for nothing
    priority: 4
    conda:
        "../envs/benchreport.yaml"
    threads: coverage_threads
    resources:
        mem_mb=lambda wildcards, threads: shapes.memory_mb(wildcards.shape, threads),
    params:
        seed=config["statistics"]["seed"],
        simulations=config["statistics"]["coverage_simulations"],
        confidence=config["statistics"]["confidence"],
        code=CODE["coverage_design"],
    # its threads are the script's own workers (Python threads over the families and blocks;
    # numpy releases the GIL), its BLAS on one thread whatever they are (the script sees to it)
    script:
        "../scripts/coverage_design.py"
