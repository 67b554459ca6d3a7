"""The built-in OpenAI-compatible provider: simulated models timed by the attention cost model."""
