"""The desktop app's widgets: the only package that imports Qt (docs/architecture.md)."""

from workbench.ui import qt_feature_scan

qt_feature_scan.skip()  # before this package's modules load: PySide6 would read each one's source
