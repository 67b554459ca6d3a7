"""The Qt-free domain: providers, prompts, streaming, metrics, runs and history."""
