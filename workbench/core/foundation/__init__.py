"""The vocabulary every part shares: a request's record and its figures, errors and their words,
validation, redaction, the written forms of numbers.
"""
