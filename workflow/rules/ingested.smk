# The one checkpoint between the ingests and everything planned from them (settings_map and
# the other functions of common.smk that read the ingests' index files): Snakemake re-plans the
# DAG once, after every ingest of the run, rather than once after each one.
checkpoint ingested:
    input:
        # every batch of the run, those of the control runs' folders too
        indexes=lambda wildcards: [ingest_file(b, "index") for b in all_batches()],
    output:
        **with_lineage(
            record=INGESTED_RECORD,
        ),
    log:
        "logs/ingested.log",
    localrule: True
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        job_folders=lambda wildcards: sorted(all_jobs()),
        batches=lambda wildcards: all_batches(),
        code=CODE["ingested"],
    script:
        "../scripts/ingested.py"
