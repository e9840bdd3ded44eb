# The workflow is workflow/Snakefile (where the Snakemake catalog and `module` look for it); this
# file lets a plain `snakemake` in the repository's root run it.


include: "workflow/Snakefile"


# include: keeps the including file's default target (none here), so name workflow/Snakefile's
workflow.default_target = "all"
