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


#: the sub-packages of each folder, lowest layer first: a module may import its own sub-package
#: and those below it, never one above. (sim's views and models are both at the bottom.)
SUB_LAYERS = {
    "engine": (("rules",), ("search", "match"), ("uci",)),
    "hdl": (("common",), ("image",), ("gen",), ("chip",), ("search",), ("link",), ("boards",)),
    "sim": (("views", "models"), ("drivers",), ("runs",), ("cli",)),
}


def sub_layer(folder: str, sub: str) -> int | None:
    for i, subs in enumerate(SUB_LAYERS[folder]):
        if sub in subs:
            return i
    return None


def upward_imports(folder: str, paths, repo: Path = REPO) -> list[str]:
    wrong = []
    for path in paths:
        parts = path.relative_to(repo).parts
        if len(parts) < 3:
            continue  # the folder's own __init__ / __main__
        mine = sub_layer(folder, parts[1])
        for line, module in imports(path, ["posdata", *parts[:-1]]):
            target = module.split(".")
            if target[:2] != ["posdata", folder] or len(target) < 3:
                continue
            theirs = sub_layer(folder, target[2])
            if theirs is not None and theirs > mine:
                wrong.append(f"{path.relative_to(repo)}:{line} imports {module}")
    return wrong


@pytest.mark.parametrize("folder", sorted(SUB_LAYERS))
def test_sub_packages_import_downward(folder):
    """rules <- search, match <- uci in engine; common <- image <- gen <- chip <- search <- link
    <- boards in hdl; views, models <- drivers <- runs <- cli in sim."""
    root = REPO / folder
    subs = {p.name for p in root.iterdir() if (p / "__init__.py").exists()}
    assert subs == {s for layer in SUB_LAYERS[folder] for s in layer}, \
        f"{folder}'s sub-packages are not the ones layered here"
    loose = [p.name for p in root.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    assert not loose, f"modules outside {folder}'s sub-packages: {loose}"
    wrong = upward_imports(folder, sorted(root.rglob("*.py")))
    assert not wrong, "\n".join(wrong)


def test_tests_mirror_the_engine():
    """tests/engine has a sub-package per engine sub-package, and no loose test module."""
    engine, tests = REPO / "engine", REPO / "tests" / "engine"
    subs = {p.name for p in engine.iterdir() if (p / "__init__.py").exists()}
    assert {p.name for p in tests.iterdir() if (p / "__init__.py").exists()} == subs
    assert not [p.name for p in tests.glob("*.py") if p.name != "__init__.py"]


def test_layer_check_sees_an_upward_import(tmp_path):
    """The check itself can fail: gen importing chip is caught, gen importing common is not."""
    probe = tmp_path / "hdl" / "gen" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text("from ..chip import attack\nfrom posdata.hdl.common import layouts\n"
                     "def f():\n    from posdata.hdl.link.uart import UartRx\n")
    assert upward_imports("hdl", [probe], tmp_path) == [
        "hdl/gen/probe.py:1 imports posdata.hdl.chip",
        "hdl/gen/probe.py:4 imports posdata.hdl.link.uart"]


def test_no_import_cycles():
    """No circle of imports between the product's modules (every import counts, lazy ones too:
    a lazy import is how a circle hides)."""
    graph = {}
    for _, path in product_modules():
        rel = path.relative_to(REPO).with_suffix("")
        name = ".".join(["posdata", *rel.parts])
        if name.endswith(".__init__"):
            name = name[:-len(".__init__")]
        graph[name] = set()
        for _, module in imports(path):
            graph[name].add(module)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):  # `from .pkg import mod` imports pkg.mod
                base = imports_of_node(node, path)
                graph[name] |= {f"{base}.{alias.name}" for alias in node.names}
    modules = set(graph)
    for name in graph:
        # `from .pkg import mod` names the package; keep edges to modules of the product only
        graph[name] = {m for m in graph[name] if m in modules and m != name}
    cycle = find_cycle(graph)
    assert cycle is None, " -> ".join(cycle)


def imports_of_node(node: ast.ImportFrom, path: Path) -> str:
    if not node.level:
        return node.module
    package = ["posdata", *path.relative_to(REPO).parent.parts]
    base = package[:len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def find_cycle(graph: dict) -> list | None:
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_cycle_check_finds_a_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


#: the longest a function of the gateware may be: an elaborate longer than this is parts waiting
#: to be split out
MAX_HDL_FUNCTION_LINES = 200


def long_functions(paths, limit: int, root: Path = REPO) -> list[str]:
    out = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    out.append(f"{path.relative_to(root)}:{node.lineno} {node.name}: "
                               f"{lines} lines")
    return out


def test_no_long_functions_in_hdl():
    wrong = long_functions(sorted((REPO / "hdl").rglob("*.py")), MAX_HDL_FUNCTION_LINES)
    assert not wrong, "\n".join(wrong)


def test_long_function_check_can_fail(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def short():\n    return 1\n\n\ndef long():\n" + "    x = 1\n" * 6)
    assert long_functions([probe], 6, tmp_path) == ["probe.py:5 long: 7 lines"]
