"""The self-test's one failure type, below both of its parts (selftest.py, the resource checks,
and ui/selftest_window.py, the window's), so that neither imports the other for it."""


class SelfTestError(Exception):
    """A check failed; the message says which and why."""
