"""A run: the runner, where its rows go, the plan from the user's choices, capacity searches,
calibration, replay, a dataset in a plan, the network baseline.
"""
