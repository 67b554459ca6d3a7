"""How the app reaches a provider: its description, keys, proxy route and files."""
