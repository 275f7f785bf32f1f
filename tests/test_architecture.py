"""The layering, read from the source: engine <- hdl <- sim, one import namespace (posdata.*).

Every import statement of every module counts, wherever it stands (inside a function too: a lazy
import is still an arrow), so the checks read the AST rather than what a process happens to load.
"""

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FOLDERS = ("engine", "hdl", "sim")
#: what each folder may import from the product and from amaranth
ALLOWED = {"engine": set(), "hdl": {"engine", "amaranth"}, "sim": {"engine", "hdl", "amaranth"}}


def imports(path: Path, package: list[str] | None = None) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the file; relative imports are resolved
    against the file's package (default: posdata.<its folders>)."""
    if package is None:
        package = ["posdata", *path.relative_to(REPO).parent.parts]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module
            out.append((node.lineno, name))
    return out


def product_modules():
    for folder in FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            yield folder, path


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] == "amaranth" or parts[0].startswith("amaranth_"):
        return "amaranth"
    if parts[0] == "posdata" and len(parts) > 1 and parts[1] in FOLDERS:
        return parts[1]
    return None


@pytest.mark.parametrize("folder", FOLDERS)
def test_imports_run_one_way(folder):
    wrong = []
    for f, path in product_modules():
        if f != folder:
            continue
        for line, module in imports(path):
            layer = layer_of(module)
            if layer is not None and layer != folder and layer not in ALLOWED[folder]:
                wrong.append(f"{path.relative_to(REPO)}:{line} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_one_namespace():
    """No module imports a folder by its bare name (engine, hdl, sim): run from the repository
    root that would load a second copy of it (the folders' __init__ refuses that at run time)."""
    bare = []
    for _, path in [*product_modules(), *(("tests", p) for p in (REPO / "tests").rglob("*.py")),
                    *(("bench", p) for p in (REPO / "bench").glob("*.py"))]:
        for line, module in imports(path):
            if module.split(".")[0] in FOLDERS:
                bare.append(f"{path.relative_to(REPO)}:{line} imports {module}")
    assert not bare, "\n".join(bare)


def test_checker_sees_lazy_and_relative_imports(tmp_path):
    """The checker itself can fail: a lazy import inside a function and a relative import are
    both read."""
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    import amaranth\n    from ..sim import cli\n")
    found = {module for _, module in imports(probe, ["posdata", "engine"])}
    assert found == {"amaranth", "posdata.sim"}


def test_commands_do_not_import_each_other():
    """A subcommand's module (one that registers a parser) is imported by the CLI's entry alone;
    what two commands share lives in a helper module of its own."""
    cli = REPO / "sim" / "cli"
    commands = {f"posdata.sim.cli.{p.stem}" for p in cli.glob("*.py")
                if "def register(" in p.read_text()}
    assert len(commands) >= 10
    wrong = [f"{p.name}:{line} imports {name}" for p in cli.glob("*.py") if p.stem != "__init__"
             for line, name in imports(p) if name in commands]
    assert not wrong, wrong
