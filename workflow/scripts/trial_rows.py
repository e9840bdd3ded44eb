"""Rule trial_rows: every trial of one setting, one row each (reports/<setting>/trials.json), and
what its run card counts from them (settings/<setting>/card-parts.json)."""

from benchreport.files import write_json
from benchreport.lineage import finish_job, start_job, write_for_rule
from benchreport.settings import number_ingest_tries
from benchreport.trial import load_ingests
from benchreport.trial_rows import TRIAL_FIELDS, TRIAL_PARTS, card_parts, setting_trial_rows

start_job(snakemake)


setting = snakemake.wildcards.setting
ingests = number_ingest_tries(load_ingests(snakemake.input.trials, TRIAL_FIELDS, TRIAL_PARTS, snakemake.params.jobs))
trials = [trial for ingest in ingests for trial in ingest["trials"]]
rows, excluded = setting_trial_rows(setting, trials, snakemake.params.controls)
card = card_parts(
    setting, ingests, excluded, benchmark_config=snakemake.params.benchmark_version, gate=snakemake.params.gate
)
write_json(snakemake.output.trials, rows)
write_json(snakemake.output.card, card)
write_for_rule(snakemake)
finish_job()
