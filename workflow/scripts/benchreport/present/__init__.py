"""What presents the record: how a value is written, every sentence, the write-up, the tables, the
page, the paper tables, the figures, the index and the trials table.
"""
