"""benchreport: turn BenchFlow job folders into results another researcher can check.

The package holds the logic as plain functions over plain data (parse, classify, interval,
render, lineage); the Snakemake rule scripts beside it only read their inputs, call it and
write. Tests import the same functions.
"""

__version__ = "0.1.0"
