"""What archives and verifies: the bundle, its RO-Crate, the re-run that verifies it, the review of
what it would publish, and the check that the outputs agree.
"""
