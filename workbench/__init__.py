"""Attention Workbench: compare LLMs behind OpenAI-compatible APIs and explain them."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("attention-workbench")
except PackageNotFoundError:  # running from a source tree or a frozen app
    __version__ = "0.1.0"
