rule bundle:
    input:
        get_final_outputs,
    output:
        **with_lineage(
            bundle=f"results/bundle/{config['bundle']['name']}.tar.gz",
            redactions=f"results/bundle/{config['bundle']['name']}.redactions.json",
        ),
    log:
        "logs/bundle/bundle.log",
    localrule: True
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        name=config["bundle"]["name"],
        trajectories=config["bundle"]["trajectories"],
        on_secret=config["bundle"]["on_secret"],
        license=config["bundle"]["license"],
        config=config,
        code=CODE["bundle"],
    script:
        "../scripts/bundle.py"
