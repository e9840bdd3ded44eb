"""Rule stats: the numbers of one setting (stats.json) from the ingested job folders it draws on;
rule trial_rows writes what else the report needs of its trials from the same folders."""

from benchreport import rulejob
from benchreport.files import dump_json, load_json, write_text
from benchreport.lineage import write_for_rule
from benchreport.stats import setting_stats

rulejob.start(snakemake)


def grid_for(profile):
    """The coverage design rule coverage_grid computed at this setting's shape (stats.smk asks for it)."""
    grid = snakemake.input.get("coverage")
    if grid is None:
        raise RuntimeError(
            f"the headline needs the coverage design at tries profile {profile}, but the stats "
            "rule was given none (stats.smk: coverage_shape found no scored task)"
        )
    return load_json(grid)


trials = [trial for path in snakemake.input.trials for trial in load_json(path)["trials"]]
params = snakemake.params.stats | {"failed_control": snakemake.params.failed_control}
stats = setting_stats(snakemake.wildcards.setting, trials, params, grid_for)
write_text(snakemake.output.stats, dump_json(stats))
write_for_rule(snakemake, "stats")
