"""Rule stats: the numbers of one setting (stats.json) from the ingested job folders it draws on;
rule trial_rows writes what else the report needs of its trials from the same folders."""

from benchreport import rulejob
from benchreport.files import dump_json, load_json, write_text
from benchreport.lineage import write_for_rule
from benchreport.settings import number_tries
from benchreport.stats import setting_stats

rulejob.start(snakemake)


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


trials = number_tries([trial for path in snakemake.input.trials for trial in load_json(path)["trials"]])
params = snakemake.params.stats | {"controls": snakemake.params.controls}
stats = setting_stats(snakemake.wildcards.setting, trials, params, grid_for)
write_text(snakemake.output.stats, dump_json(stats))
write_for_rule(snakemake)
