"""Attention Workbench: compare LLMs behind OpenAI-compatible APIs and explain them."""

# Written here as in pyproject.toml (tests/test_release_metadata.py holds them equal): reading it
# with importlib.metadata cost ~25 ms before the window's first paint.
__version__ = "0.1.0"
