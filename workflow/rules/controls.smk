# planned, in the job, from the index of every job folder found under job_roots: the control
# runs go before checkpoint ingested
checkpoint controls:
    input:
        indexes=lambda wildcards: [ingest_file(b, "index") for b in plan_ingests()],
    output:
        **with_lineage(
            manifest="results/controls/run-{kind}.json",
        ),
    log:
        "logs/controls/run-{kind}.log",
    localrule: True
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        run=config["controls"]["run"],
        code=CODE["controls"],
    script:
        "../scripts/controls.py"
