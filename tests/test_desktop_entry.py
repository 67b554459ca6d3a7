"""The app's .desktop entry and hicolor icons: shipped in the package, installed for a user by
`workbench install-desktop` (a real subprocess of the CLI), and used by the window."""

from __future__ import annotations

import configparser
import os
import shlex
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.desktop import APP_ID, desktop_file, icon_files

SIZES = [16, 22, 24, 32, 48, 64, 128, 256]


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive in a .desktop file
    parser.read(path, encoding="utf-8")
    return dict(parser["Desktop Entry"])


def workbench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def test_shipped_entry_names_the_app_its_icon_and_launcher() -> None:
    values = entry(desktop_file())
    assert values["Type"] == "Application"
    assert values["Name"] == "Attention Workbench"
    assert values["GenericName"] and values["Comment"]
    assert values["Exec"] == "attention-workbench"  # the gui-script pyproject.toml installs
    assert values["Icon"] == APP_ID
    assert values["Terminal"] == "false"
    assert values["Categories"].split(";")[0] == "Development"
    assert values["Categories"].endswith(";")
    assert values["StartupWMClass"]


def test_icon_theme_has_every_size_and_the_svg() -> None:
    files = icon_files()
    pngs = [p for p in files if p.suffix == ".png"]
    assert [png_size(p) for p in pngs] == [(n, n) for n in SIZES]
    assert [p.parts[-3] for p in pngs] == [f"{n}x{n}" for n in SIZES]
    svg = [p for p in files if p.suffix == ".svg"]
    assert len(svg) == 1 and svg[0].read_text(encoding="utf-8").startswith("<svg")


def test_install_desktop_puts_entry_and_icons_under_xdg_data_home(tmp_path) -> None:
    home = tmp_path / "share"
    done = workbench("install-desktop", env={"XDG_DATA_HOME": str(home)})
    assert done.returncode == 0, done.stderr
    installed = home / "applications" / f"{APP_ID}.desktop"
    assert f"installed {installed}" in done.stdout
    values = entry(installed)
    # Exec runs something that exists: the launcher on PATH, or its full path
    program = shlex.split(values["Exec"])[0]
    assert shutil.which(program) or Path(program).is_file()
    for n in SIZES:
        icon = home / "icons" / "hicolor" / f"{n}x{n}" / "apps" / f"{values['Icon']}.png"
        assert png_size(icon) == (n, n)
    assert (home / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg").is_file()
    if shutil.which("desktop-file-validate"):  # freedesktop's own checker, where installed
        check = subprocess.run(["desktop-file-validate", str(installed)], capture_output=True)
        assert check.returncode == 0, check.stdout

    removed = workbench("install-desktop", "--uninstall", "--data-home", str(home))
    assert removed.returncode == 0, removed.stderr
    assert not installed.exists()
    assert not list((home / "icons").rglob("*.png"))


def test_install_desktop_into_an_unwritable_place_exits_2_naming_the_fix(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    done = workbench("install-desktop", "--data-home", str(blocker / "share"))
    assert done.returncode == 2
    assert "cannot write under" in done.stderr and "--data-home" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.usefixtures("qapp")
def test_window_icon_offers_every_size() -> None:
    from workbench.ui.app import app_icon

    icon = app_icon()
    sizes = {(s.width(), s.height()) for s in icon.availableSizes()}
    assert {(n, n) for n in SIZES} <= sizes
    assert not icon.pixmap(256, 256).toImage().isNull()


def test_the_appstream_metainfo_launches_the_shipped_entry_and_binary() -> None:
    import xml.etree.ElementTree as ET

    (path,) = (Path(__file__).parent.parent / "resources" / "desktop").glob("*.metainfo.xml")
    root = ET.parse(path).getroot()
    assert root.get("type") == "desktop-application"
    assert path.name == f"{root.findtext('id')}.metainfo.xml"  # AppStream's naming rule
    assert root.findtext("launchable") == desktop_file().name
    assert root.findtext("provides/binary") == entry(desktop_file())["Exec"]
    assert root.findtext("name") == "Attention Workbench"
    assert root.findtext("project_license") == "Apache-2.0"
