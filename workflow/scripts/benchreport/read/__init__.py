"""What reads BenchFlow job folders: finding them, their files, the trial rows ingest writes, who
graded a trial, the settings it ran under, the image it ran in, the controls BenchFlow runs, and
the secrets kept out of what leaves the machine.
"""
