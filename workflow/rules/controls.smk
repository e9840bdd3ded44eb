checkpoint controls:
    input:
        unpack(user_job_indexes),
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
