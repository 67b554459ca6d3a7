"""PyInstaller runtime hook: stand-ins for PySide6.QtOpenGL and QtOpenGLWidgets.

The packaged app leaves those two bindings out (9.6 MB with libQt6OpenGL): it draws its
charts with QPainter. pyqtgraph still imports them at module level, for its optional OpenGL
mode, and tests `isinstance(widget, QOpenGLWidget)` while painting. The stand-ins answer
those imports; using OpenGL for real raises an error that says why. A finder appended to
sys.meta_path only answers when no real module was found first.
"""

import importlib.abc
import importlib.machinery
import sys
import types

_WHY = "OpenGL drawing is left out of the packaged Attention Workbench (build.spec)"
_NAMES = ("PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets")


class _NoOpenGL(types.ModuleType):
    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"{self.__name__}.{name}: {_WHY}")


class _StandInFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in _NAMES:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec):
        return _NoOpenGL(spec.name)

    def exec_module(self, module):
        if module.__name__.endswith("QtOpenGLWidgets"):
            from PySide6.QtWidgets import QWidget

            class QOpenGLWidget(QWidget):
                # never instantiated by the app; isinstance() checks against it are False
                def __init__(self, *args, **kwargs):
                    raise RuntimeError(_WHY)

            module.QOpenGLWidget = QOpenGLWidget


sys.meta_path.append(_StandInFinder())
