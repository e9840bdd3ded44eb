# The setting's trial rows (trials.json, published as they are) and what its run card counts from
# them (card-parts.json); report reads both, later stages neither. A job of its own beside stats,
# from the same ingests, so that the figures and the comparisons, which read only the numbers,
# start as soon as the numbers are written.
rule trial_rows:
    input:
        trials=setting_ingests,
    output:
        trials="results/reports/{setting}/trials.json",
        card="results/settings/{setting}/card-parts.json",
        lineage_trials=lineage_of("results/reports/{setting}/trials.json"),
        lineage_card=lineage_of("results/settings/{setting}/card-parts.json"),
    log:
        "logs/trial_rows/{setting}.log",
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        jobs=setting_jobs,
        controls=controls_policy(),
        benchmark_version=config["benchmark_version"],
        gate=config["run_summary_gate"],
        code=CODE["trial_rows"],
    script:
        "../scripts/trial_rows.py"
