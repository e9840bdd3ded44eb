# results/trials.csv: every trial of every setting, one row each (benchreport.present.trials_table).
# What defines a setting is read from its stats.json (the key the record copies), not from
# summary.json: the table then runs beside rule report, not after it.
rule trials_table:
    input:
        stats=lambda wildcards: [
            f"results/settings/{setting}/stats.json"
            for setting in sorted(settings_map())
        ],
        trials=lambda wildcards: [
            f"results/reports/{setting}/trials.json"
            for setting in sorted(settings_map())
        ],
    output:
        table="results/trials.csv",
        lineage_table=lineage_of("results/trials.csv"),
    log:
        "logs/trials_table/all.log",
    conda:
        "../envs/benchreport.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=CODE["trials_table"],
    script:
        "../scripts/trials_table.py"
