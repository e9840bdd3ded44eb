rule ingest:
    input:
        unpack(ingest_inputs),
    output:
        **with_lineage(
            trials=ingest_file("{batch}", "trials"),
            index=ingest_file("{batch}", "index"),
            tasks=ingest_file("{batch}", "tasks"),
            ledger=ingest_file("{batch}", "ledger"),
        ),
    log:
        "logs/ingest/{batch}.log",
    conda:
        "../envs/benchreport.yaml"
    threads: ingest_threads
    resources:
        mem_mb=lambda wildcards, threads: 1000 * threads,
    params:
        jobs=batch_params,
        max_requests=config["ingest"]["max_requests"],
        nop_agents=config["controls"]["nop_agents"]
        + [config["controls"]["run"]["nop_agent"]],
        code=CODE["ingest"],
    message:
        "Ingesting the BenchFlow job folders of batch {wildcards.batch}"
    # one job per batch of job folders (stamps.ingest_batches)
    script:
        "../scripts/ingest.py"


# What a dry run shows for a job folder whose change calls for its ingest (stamps.due_file): a
# real run writes the stamps as it plans, so no real run makes these.
rule due_stamp:
    output:
        f"{stamps.STATE_DIR}/{{key}}.due",
    log:
        "logs/ingest/due-{key}.log",
    localrule: True
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=50,
    shell:
        "touch {output} 2> {log}"
