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
    # a folder read in two processes (its threads) runs no numerical library on several threads:
    # the run's fork server serves it (at 200 attempt folders a fresh Python took 0.29 s, a copy
    # of the server ~0.09 s)
    shell:
        run_script("ingest", one_blas_thread=True)
