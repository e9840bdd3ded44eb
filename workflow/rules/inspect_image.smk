rule inspect_image:
    output:
        **with_lineage(
            record="results/environment/images/{image}.json",
        ),
    log:
        "logs/environment/{image}.log",
    localrule: True
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=200,
    params:
        reference=image_param("reference"),
        build_context=image_param("build_context"),
        build_tag=image_param("build_tag"),
        docker=config["environment"]["docker"],
        docker_host=config["environment"]["docker_host"],
        timeout=config["environment"]["timeout_seconds"],
        records_from=config["environment"]["records_from"],
        code=CODE["inspect_image"],
    script:
        "../scripts/inspect_image.py"
