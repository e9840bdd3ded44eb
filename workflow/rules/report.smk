# One job per setting: its numbers, trial rows and everything rendered from them. priority: rule
# run_report waits for every setting's report, which wait only for the coverage designs (4).
rule report:
    input:
        unpack(report_inputs),
    output:
        **with_lineage(
            # the numbers, which the run-level stages read
            stats="results/settings/{setting}/stats.json",
            trials="results/reports/{setting}/trials.json",
            report="results/reports/{setting}/report.md",
            summary="results/reports/{setting}/summary.json",
            writeup="results/reports/{setting}/writeup.md",
            run_card="results/reports/{setting}/run-card.json",
            run_summary="results/reports/{setting}/run-summary.json",
            # what report.html lists of the setting's trials (run_report reads no trial file for it)
            page="results/settings/{setting}/page.json",
        ),
    log:
        "logs/report/{setting}.log",
    priority: 3
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=1500,
    params:
        jobs=lambda wildcards: stats_jobs(wildcards.setting),
        statistics=config["statistics"],
        controls=CONTROLS_POLICY,
        benchmark_version=config["benchmark_version"],
        gate=config["run_summary_gate"],
        task_images=report_environment,
        code=CODE["report"],
    script:
        "../scripts/report.py"
