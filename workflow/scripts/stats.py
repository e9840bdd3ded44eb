"""Rule stats: the numbers of one setting (stats.json) from the ingested job folders it draws on;
rule trial_rows writes what else the report needs of its trials from the same folders."""

from benchreport import rulejob
from benchreport.files import dump_json, load_json, write_text
from benchreport.settings import number_tries
from benchreport.lineage import write_for_rule
from benchreport.stats import setting_stats

rulejob.start(snakemake)


def grid_for(profile):
    """The coverage design rule coverage_grid computed at this setting's tries profile (stats.smk
    plans it from the ingests' index.json); None, so that the design is computed here, when the
    plan's profile is not the one the numbers need (the plan does not see every control verdict,
    e.g. controls.on_unverified: exclude)."""
    grid = snakemake.input.get("coverage")
    if grid is None:
        return None
    grid = load_json(grid)
    return grid if [tuple(group) for group in grid["tries_profile"]] == list(profile) else None


trials = number_tries([trial for path in snakemake.input.trials for trial in load_json(path)["trials"]])
params = snakemake.params.stats | {"controls": snakemake.params.controls}
stats = setting_stats(snakemake.wildcards.setting, trials, params, grid_for)
write_text(snakemake.output.stats, dump_json(stats))
write_for_rule(snakemake, "stats")
