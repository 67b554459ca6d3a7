"""The run history (SQLite) and what is read from it: CSV, JSON documents, the Summary's rows
and conclusions, imported results, route comparisons.
"""
