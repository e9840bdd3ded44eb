from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/ingest.smk"
include: "workflow/rules/environment.smk"
include: "workflow/rules/controls.smk"
include: "workflow/rules/stats.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/compare.smk"
include: "workflow/rules/paper.smk"
include: "workflow/rules/bundle.smk"


rule all:
    default_target: True
    input:
        # every job folder's ingest first, as plain inputs, so all of them enter the first
        # DAG and run in parallel (the checkpoint-driven targets below appear as they finish)
        user_ingests,
        get_final_outputs,
    localrule: True


onsuccess:
    scheduling.end_of_run()


onerror:
    scheduling.end_of_run()
