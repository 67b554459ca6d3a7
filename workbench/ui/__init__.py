"""The desktop app's widgets: the only package that imports Qt (docs/architecture.md)."""
