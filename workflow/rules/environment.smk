rule inspect_image:
    output:
        record="results/environment/images/{image}.json",
        lineage=lineage_of("results/environment/images/{image}.json"),
    params:
        reference=image_param("reference"),
        build_context=image_param("build_context"),
        build_tag=image_param("build_tag"),
        docker=config["environment"]["docker"],
        docker_host=config["environment"]["docker_host"],
        timeout=config["environment"]["timeout_seconds"],
        code=CODE["environment"],
    conda:
        "../envs/benchreport.yaml"
    log:
        "logs/environment/{image}.log",
    localrule: True
    threads: 1
    resources:
        mem_mb=200,
    script:
        "../scripts/inspect_image.py"
