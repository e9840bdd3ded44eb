# Named targets for the common partial runs (`snakemake --cores 4 <target>`); a rule's own name is
# a target too: `run_report` (comparisons, paper tables and figures, index, exclusions, trials.csv,
# report.html), `bundle`. The ingests go first as plain inputs, as in rule all.


# every setting's report files (results/reports/<setting>/, results/settings/<setting>/),
# nothing run-level
rule reports:
    input:
        user_ingests,
        setting_outputs,
    localrule: True


# every setting's numbers (results/settings/<setting>/stats.json), what the figures and the
# comparisons are computed from
rule numbers:
    input:
        user_ingests,
        setting_numbers,
    localrule: True
