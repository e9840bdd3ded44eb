"""Rule stats: the numbers of one setting (stats.json) from the ingested job folders it draws on;
rule trial_rows writes what else the report needs of its trials from the same folders."""

from benchreport.files import load_json, write_json
from benchreport.lineage import finish_job, start_job, write_for_rule
from benchreport.settings import number_tries
from benchreport.stats import TRIAL_FIELDS, TRIAL_PARTS, setting_stats
from benchreport.trial import load_ingests

start_job(snakemake)


def grid_for(profile):
    """The coverage design rule coverage_design computed at the shape the workflow planned for this
    setting (`shapes.planned_profile`); setting_stats checks it is the one its headline needs."""
    grid = snakemake.input.get("coverage")
    if grid is None:
        raise ValueError(
            f"no coverage design was planned for {snakemake.wildcards.setting}, whose tasks have "
            f"the tries profile {profile}: the plan found no scored task (a bug)"
        )
    return load_json(grid)


ingests = load_ingests(snakemake.input.trials, TRIAL_FIELDS, TRIAL_PARTS, snakemake.params.jobs)
trials = number_tries([trial for ingest in ingests for trial in ingest["trials"]])
params = snakemake.params.stats | {"controls": snakemake.params.controls}
stats = setting_stats(snakemake.wildcards.setting, trials, params, grid_for)
write_json(snakemake.output.stats, stats)
write_for_rule(snakemake)
finish_job()
