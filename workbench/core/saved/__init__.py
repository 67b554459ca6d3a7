"""The saved providers: the providers file's schema and store."""
