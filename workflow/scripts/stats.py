"""Rule stats: the numbers of one setting from the ingested job folders it draws on."""

from benchreport import rulejob, runcard
from benchreport.files import dump_json, load_json, write_text
from benchreport.lineage import write_for_rule
from benchreport.stats import setting_stats, split_trial_rows

rulejob.start(snakemake)


def grid_for(tasks, tries):
    """The coverage grid rule coverage_grid computed at this setting's shape (stats.smk asks for it)."""
    grid = snakemake.input.get("coverage")
    if grid is None:
        raise RuntimeError(
            f"the headline needs the coverage grid at {tasks} tasks x {tries} tries, but the stats "
            "rule was given none (stats.smk: coverage_shape found no scored task)"
        )
    return load_json(grid)


setting = snakemake.wildcards.setting
ingests = [load_json(path) for path in snakemake.input.trials]
trials = [trial for ingest in ingests for trial in ingest["trials"]]
own_jobs = [ingest for ingest in ingests if any(t["setting"] == setting for t in ingest["trials"])]
params = snakemake.params.stats | {"failed_control": snakemake.params.failed_control}
stats = setting_stats(setting, trials, params, grid_for)
stats["job_folders"] = [ingest["job"] | {"crosscheck": ingest["crosscheck"]} for ingest in own_jobs]
stats["ledger"] = [row for ingest in own_jobs for row in ingest["ledger"]]
stats |= runcard.card_parts(
    setting, ingests, stats, benchmark_config=snakemake.params.benchmark_version, gate=snakemake.params.gate
)
numbers, trial_rows = split_trial_rows(stats)
write_text(snakemake.output.stats, dump_json(numbers))
write_text(snakemake.output.trials, dump_json(trial_rows))
write_for_rule(snakemake, "stats")
