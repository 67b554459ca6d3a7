"""What a run will do and what it emits: the plan, its events, the memory and context rules that
refuse a cell before it is sent, the progress estimate.
"""
