rule ingest:
    input:
        unpack(ingest_inputs),
    output:
        trials=ingest_file("{job}", "trials"),
        index=ingest_file("{job}", "index"),
        tasks=ingest_file("{job}", "tasks"),
        ledger=ingest_file("{job}", "ledger"),
        lineage_trials=lineage_of(ingest_file("{job}", "trials")),
        lineage_index=lineage_of(ingest_file("{job}", "index")),
        lineage_tasks=lineage_of(ingest_file("{job}", "tasks")),
        lineage_ledger=lineage_of(ingest_file("{job}", "ledger")),
    log:
        "logs/ingest/{job}.log",
    conda:
        "../envs/benchreport.yaml"
    threads: ingest_threads
    resources:
        mem_mb=1000,
    params:
        **runner_params(
            job=job_params,
            max_requests=config["ingest"]["max_requests"],
            nop_agents=config["controls"]["nop_agents"]
            + [config["controls"]["run"]["nop_agent"]],
            code=CODE["ingest"],
        ),
    message:
        "Ingesting BenchFlow job folder {wildcards.job}"
    # its threads are its own workers (a folder read in forked processes), and it loads no
    # numerical library: with their thread variables at 1, the run's fork server serves it
    shell:
        run_script("ingest", one_blas_thread=True)
