# priority: see rule figures (figures.smk)
rule report:
    input:
        unpack(report_inputs),
    output:
        report="results/reports/{setting}/report.md",
        summary="results/reports/{setting}/summary.json",
        writeup="results/reports/{setting}/writeup.md",
        run_card="results/reports/{setting}/run-card.json",
        run_summary="results/reports/{setting}/run-summary.json",
        # what report.html lists of the setting's trials (html_report reads no trial file)
        page="results/settings/{setting}/page.json",
        lineage_report=lineage_of("results/reports/{setting}/report.md"),
        lineage_summary=lineage_of("results/reports/{setting}/summary.json"),
        lineage_writeup=lineage_of("results/reports/{setting}/writeup.md"),
        lineage_run_card=lineage_of("results/reports/{setting}/run-card.json"),
        lineage_run_summary=lineage_of("results/reports/{setting}/run-summary.json"),
        lineage_page=lineage_of("results/settings/{setting}/page.json"),
    log:
        "logs/report/{setting}.log",
    priority: 2
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        task_images=report_environment,
        min_tries=config["statistics"]["min_trials_per_task"],
        code=CODE["report"],
    script:
        "../scripts/report.py"
