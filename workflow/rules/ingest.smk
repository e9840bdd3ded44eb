rule ingest:
    input:
        unpack(ingest_inputs),
    output:
        trials="results/ingest/{job}/trials.json",
        index="results/ingest/{job}/index.json",
        tasks="results/ingest/{job}/tasks.json",
        ledger="results/ingest/{job}/ledger.json",
        lineage_trials=lineage_of("results/ingest/{job}/trials.json"),
        lineage_index=lineage_of("results/ingest/{job}/index.json"),
        lineage_tasks=lineage_of("results/ingest/{job}/tasks.json"),
        lineage_ledger=lineage_of("results/ingest/{job}/ledger.json"),
    log:
        "logs/ingest/{job}.log",
    conda:
        "../envs/benchreport.yaml"
    threads: ingest_threads
    resources:
        mem_mb=1000,
    params:
        job=job_params,
        duplicates=job_duplicates,
        max_requests=config["ingest"]["max_requests"],
        nop_agents=config["controls"]["nop_agents"]
        + [config["controls"]["run"]["nop_agent"]],
        code=CODE["ingest"],
    message:
        "Ingesting BenchFlow job folder {wildcards.job}"
    script:
        "../scripts/ingest.py"
