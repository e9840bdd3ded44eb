"""What builds a setting's record: its typed parts, the rows of its trials, the run card, the
completeness checklist, and what the page and the figures list.
"""
