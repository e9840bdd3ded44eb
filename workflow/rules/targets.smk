# Named targets for the common partial runs (`snakemake --cores 4 <target>`); a rule's own name is
# a target too: `figures`, `paper` (the tables), `comparisons`, `overview`, `html_report`,
# `trials_table`, `bundle`. The ingests go first as plain inputs, as in rule all.


# every setting's report files (results/reports/<setting>/, results/settings/<setting>/),
# nothing run-level
rule reports:
    input:
        user_ingests,
        setting_outputs,
    localrule: True


# every setting's numbers (results/settings/<setting>/stats.json), what the figures and the
# comparisons read
rule numbers:
    input:
        user_ingests,
        setting_numbers,
    localrule: True
