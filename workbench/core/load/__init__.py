"""The load a run applies: prompts, open-loop arrivals, SLOs and goodput, a capacity search's
steps, the measuring client's own load.
"""
