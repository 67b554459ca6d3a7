"""The system libraries Qt's xcb platform plugin needs and this box lacks, and the Debian
packages that hold them: read from `ldd` on the plugin file PySide6 ships, never a hand list.

Without them QApplication aborts (exit 134) naming libxcb-cursor0 whatever is missing; the
app's start (`workbench gui`) and `scripts/bootstrap.sh` ask here first. No Qt import: the
check runs before Qt loads, and `python -m workbench.core.system.qt_libraries` prints the packages.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

PLUGIN_FILE = "libqxcb.so"
LDD_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class MissingLibraries:
    plugin: Path
    sonames: tuple[str, ...]  # as ldd names them: libxcb-icccm.so.4
    packages: tuple[str, ...]  # the Debian packages that hold them: libxcb-icccm4

    def install_command(self) -> str:
        if not self.packages:  # apt knows none by name: one of the sonames' owners holds them
            return "apt-file search " + self.sonames[0]
        return "sudo apt-get install " + " ".join(self.packages)

    def message(self) -> str:
        return (
            f"Qt's xcb platform plugin ({self.plugin}) cannot load: this system lacks "
            f"{', '.join(self.sonames)}. Fix (Debian/Ubuntu): {self.install_command()} "
            "(scripts/bootstrap.sh installs them), or run headless: `workbench bench`, or "
            "QT_QPA_PLATFORM=offscreen for screenshots."
        )


def uses_xcb(env: Mapping[str, str] = os.environ) -> bool:
    """Whether Qt will load its xcb plugin here: Linux with an X display, and no other platform
    chosen (QT_QPA_PLATFORM) or preferred (a Wayland session, which Qt tries first)."""
    if not sys.platform.startswith("linux"):
        return False
    chosen = env.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if chosen:
        return chosen == "xcb" and bool(env.get("DISPLAY"))
    wayland = env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE") == "wayland"
    return bool(env.get("DISPLAY")) and not wayland


def plugin_path(env: Mapping[str, str] = os.environ) -> Path | None:
    """The libqxcb.so Qt would load: from QT_QPA_PLATFORM_PLUGIN_PATH or QT_PLUGIN_PATH when
    set (Qt honours both), else the one in PySide6's wheel."""
    folders = [Path(p) for p in env.get("QT_QPA_PLATFORM_PLUGIN_PATH", "").split(os.pathsep) if p]
    folders += [Path(p) / "platforms" for p in env.get("QT_PLUGIN_PATH", "").split(os.pathsep) if p]
    spec = importlib.util.find_spec("PySide6")
    for location in (spec.submodule_search_locations or []) if spec else []:
        folders.append(Path(location) / "Qt" / "plugins" / "platforms")
    return next((f / PLUGIN_FILE for f in folders if (f / PLUGIN_FILE).is_file()), None)


def start_ldd(library: Path) -> subprocess.Popen[str] | None:
    """`ldd` on `library`, started (it runs while the caller imports Qt); None without ldd."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return None
    try:
        return subprocess.Popen(
            [ldd, str(library)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
    except OSError:
        return None


def not_found(ldd: subprocess.Popen[str] | None) -> list[str]:
    """The sonames a started `ldd` reports "not found" (the library's whole dependency tree);
    empty when every one resolves, or when ldd is absent or fails (nothing can be said then)."""
    if ldd is None:
        return []
    try:
        out, _ = ldd.communicate(timeout=LDD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        ldd.kill()
        ldd.communicate()
        return []
    missing = []
    for line in out.splitlines():
        name, arrow, where = line.strip().partition("=>")
        if arrow and where.strip() == "not found" and name.strip() not in missing:
            missing.append(name.strip())
    return missing


def debian_package(soname: str) -> str:
    """Debian's library package name (policy 8.1): the soname without ".so.", lower case, a
    hyphen before the version when the name ends in a digit, no underscores.
    libxcb-icccm.so.4 -> libxcb-icccm4, libxkbcommon-x11.so.0 -> libxkbcommon-x11-0."""
    name, dot_so, version = soname.partition(".so.")
    base = name.lower().replace("_", "-")
    if not dot_so or not version:
        return base.removesuffix(".so")
    return f"{base}-{version}" if base[-1].isdigit() else f"{base}{version}"


def package_candidates(soname: str) -> list[str]:
    """The rule's name, then what Debian also does: the hyphen before a name's own version
    dropped (libglib-2.0.so.0 is in libglib2.0-0), and the 64-bit time_t renames (…t64)."""
    rule = debian_package(soname)
    names = [rule]
    stem, _, version = soname.partition(".so.")
    if "-" in stem and stem.rsplit("-", 1)[1][:1].isdigit():
        names.append(debian_package(stem.replace("-", "", 1) + ".so." + version))
    return names + [n + "t64" for n in names]


def apt_knows(package: str) -> bool:
    apt_cache = shutil.which("apt-cache")
    if apt_cache is None:
        return False
    try:
        found = subprocess.run(
            [apt_cache, "show", "--no-all-versions", package],
            capture_output=True,
            timeout=LDD_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return found.returncode == 0 and bool(found.stdout.strip())


def package_for(soname: str, known: Callable[[str], bool] | None = apt_knows) -> str | None:
    """The first candidate apt knows, or None when it knows none: a library packaged with
    another (libgthread-2.0.so.0 is in libglib2.0-0) comes with that one. Without apt
    (`known` None) the rule's name, for the message."""
    candidates = package_candidates(soname)
    if known is None:
        return candidates[0]
    return next((c for c in candidates if known(c)), None)


def default_known() -> Callable[[str], bool] | None:
    return apt_knows if shutil.which("apt-cache") else None


class XcbCheck:
    """`ldd` on the xcb plugin, started at once; `result()` waits for it and names what is
    missing, or None when the plugin loads (or none is found)."""

    def __init__(
        self, env: Mapping[str, str] = os.environ, known: Callable[[str], bool] | None = None
    ) -> None:
        self.plugin = plugin_path(env)
        self.known = known if known is not None else default_known()
        self._ldd = start_ldd(self.plugin) if self.plugin is not None else None

    def result(self) -> MissingLibraries | None:
        sonames = not_found(self._ldd)
        if self.plugin is None or not sonames:
            return None
        found = (package_for(s, self.known) for s in sonames)
        packages = tuple(dict.fromkeys(p for p in found if p is not None))
        return MissingLibraries(self.plugin, tuple(sonames), packages)


def missing_libraries(
    env: Mapping[str, str] = os.environ, known: Callable[[str], bool] | None = None
) -> MissingLibraries | None:
    """What the xcb plugin lacks here, or None when it loads (or no plugin is found)."""
    return XcbCheck(env, known).result()


def main() -> int:
    """Print the packages to install, one a line (nothing when none is missing)."""
    missing = missing_libraries()
    if missing is not None:
        print("\n".join(missing.packages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
