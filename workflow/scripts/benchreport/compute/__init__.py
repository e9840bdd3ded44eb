"""What computes the numbers: intervals and their coverage, pass@k, the controls' verdicts, a
setting's numbers, paired comparisons, and the commands that compute from numbers a researcher
brings.
"""
