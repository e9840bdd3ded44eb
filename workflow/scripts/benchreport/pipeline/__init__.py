"""How the workflow runs its stages: which job folders changed, what it plans from the ingests, the
lineage record of every output, the config check and the outputs' one serialisation.
"""
