"""The wheel holds every package of the product: a non-editable install (and a Dask worker on
another machine, which has one) imports each sub-package, and the C entry points are inside.

The wheel is built from a copy of the sources, and imported with site processing off and the
wheel's folder ahead of the dependencies', so neither the editable install's import hook nor the
checkout itself can stand in for it."""

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FOLDERS = ("engine", "hdl", "sim")


def packages_in_tree() -> set[str]:
    """Every folder with an __init__.py under engine/, hdl/ and sim/, as posdata.* names."""
    out = set()
    for folder in FOLDERS:
        for init in (REPO / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(REPO).parts
            out.add(".".join(["posdata", *parts]))
    return out


def test_wheel_imports_every_sub_package(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    for folder in FOLDERS:
        shutil.copytree(REPO / folder, src / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "--no-build-isolation", "-w", str(wheels), str(src)],
                   check=True, capture_output=True, timeout=300)  # a hang guard: idle ~1.5 s
    wheel, = wheels.glob("posdata-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("posdata/sim/models/") and n.endswith(".cc") for n in names), \
        "the C entry points are not in the wheel"
    assert "posdata/engine/match/openings.txt" in names, "posdata match's opening book is not " \
        "in the wheel"

    target = tmp_path / "installed"
    zipfile.ZipFile(wheel).extractall(target)
    packages = sorted(packages_in_tree())
    assert len(packages) >= 14
    code = ("import importlib, sys\n"
            f"for name in {packages!r}:\n"
            "    module = importlib.import_module(name)\n"
            f"    assert module.__file__.startswith({str(target)!r}), (name, module.__file__)\n"
            "from posdata.engine.match.book import read_book\n"
            "assert len(read_book()) >= 100\n"
            "print('imported', len(sys.modules))\n")
    site = sysconfig.get_paths()["purelib"]
    run = subprocess.run([sys.executable, "-S", "-c", code], cwd=tmp_path,
                         env={"PYTHONPATH": f"{target}:{site}", "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True,
                         timeout=300)  # a hang guard: idle ~0.5 s
    assert run.returncode == 0, run.stderr[-2000:]


def test_pyproject_names_every_package():
    """setuptools installs only the packages pyproject lists: a sub-package left out of it
    would be missing from the wheel (and the test above would say so, more slowly)."""
    import tomllib
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())
                 ["tool"]["setuptools"]["packages"])
    assert listed == packages_in_tree()
