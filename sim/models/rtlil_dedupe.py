"""One module for each set of identical modules in Amaranth's RTLIL.

Amaranth writes a module per instance: a chip of six engines is six engines and twelve threads,
each module with its own name, and the automatic names of some wires carry design-wide counters
(``\\port$6$0`` in one copy, ``\\port$5104$0`` in the next). Here each module is compared by its
content with its own names numbered in order of appearance (and its submodules compared the same
way, bottom up); every set of identical modules is replaced by its first, whose port names the
parents' connections are translated to; and the modules used more than once are marked
``keep_hierarchy``, so that Yosys's ``flatten`` folds everything else into them and the C++
compiler sees each distinct unit once (``sim.models.cxxrtl``). Modules that differ (a test's
engine with a corrupted ROM) stay apart.
"""

import hashlib
import re

_MODULE = re.compile(r"^module (\S+)$")
#: lines that declare a name in a module: the name is the last token
_DECLARES = ("wire ", "memory ", "cell ", "process ")


class _Module:
    def __init__(self, name: str, lines: list[str]):
        self.name = name
        self.lines = lines  # attribute lines before it, ``module``, body, ``end``
        self.local: dict[str, int] = {}  # its own names, numbered in order of declaration
        for line in lines:
            stripped = line.strip()
            if stripped.startswith(_DECLARES):
                self.local.setdefault(stripped.split()[-1], len(self.local))
        self.by_number = {n: name for name, n in self.local.items()}
        self.key: str | None = None


def _split(il: str):
    """(lines before the first module, [_Module]); a module's lines include the attribute
    lines just before it."""
    modules, pending, preamble, current = [], [], [], None
    for line in il.splitlines():
        if current is None:
            match = _MODULE.match(line)
            if match:
                current = (match.group(1), pending + [line])
                pending = []
            elif line.startswith("attribute "):
                pending.append(line)
            else:
                preamble.extend(pending + [line])
                pending = []
        else:
            current[1].append(line)
            if line == "end":
                modules.append(_Module(*current))
                current = None
    return preamble + pending, modules


def _rename(module: _Module, token: str, new_name) -> str:
    """A token of one of ``module``'s lines with its own names replaced (``new_name(number)``),
    MEMID strings included."""
    if token in module.local:
        return new_name(module.local[token])
    if token.startswith('"\\\\') and token.endswith('"'):
        inner = "\\" + token[3:-1]
        if inner in module.local:
            return '"\\' + new_name(module.local[inner]) + '"'
    return token


def _walk(module: _Module, modules: dict, new_name, child_name, port_name):
    """``module``'s lines with its own names renamed, submodule cell types replaced
    (``child_name(type)``) and the port names of their connections too
    (``port_name(type, port)``)."""
    out, in_cell, cell_type = [], False, None
    for line in module.lines:
        stripped = line.strip()
        indent = line[:len(line) - len(line.lstrip())]
        tokens = stripped.split(" ")
        if tokens[0] == "cell":
            in_cell, cell_type = True, (tokens[1] if tokens[1] in modules else None)
            if cell_type:
                tokens[1] = child_name(cell_type)
            tokens[2] = _rename(module, tokens[2], new_name)
        elif tokens[0] == "end":
            in_cell, cell_type = False, None
        elif tokens[0] in ("connect", "parameter") and in_cell:
            # a cell's port or parameter name is the cell type's, not this module's
            if cell_type and tokens[0] == "connect":
                tokens[1] = port_name(cell_type, tokens[1])
            tokens[2:] = [_rename(module, t, new_name) for t in tokens[2:]]
        elif tokens[0] != "module":
            tokens = [_rename(module, t, new_name) for t in tokens]
        out.append(indent + " ".join(tokens))
    return out


def dedupe(il: str) -> str:
    """``il`` with identical modules merged (the first of each set kept) and the modules
    instantiated more than once marked ``keep_hierarchy``."""
    preamble, order = _split(il)
    modules = {m.name: m for m in order}

    def key(name: str) -> str:
        m = modules[name]
        if m.key is None:
            text = _walk(m, modules, lambda n: f"\\{n}", key,
                         lambda child, port: f"\\{modules[child].local.get(port, port)}")
            m.key = hashlib.sha256("\n".join(t for t in text if not t.startswith("module"))
                                   .encode()).hexdigest()
        return m.key

    first: dict[str, str] = {}
    for m in order:
        first.setdefault(key(m.name), m.name)

    def port_name(child: str, port: str) -> str:
        kept = modules[first[key(child)]]
        return kept.by_number[modules[child].local[port]] if port in modules[child].local \
            else port

    uses: dict[str, int] = {}
    kept_lines = {}
    for m in order:
        if first[key(m.name)] != m.name:
            continue

        def child_name(child: str) -> str:
            target = first[key(child)]
            uses[target] = uses.get(target, 0) + 1
            return target
        kept_lines[m.name] = _walk(m, modules, lambda n, m=m: m.by_number[n], child_name,
                                   port_name)
    text = list(preamble)
    for name, lines in kept_lines.items():
        if uses.get(name, 0) > 1:
            at = next(i for i, line in enumerate(lines) if line.startswith("module "))
            lines = lines[:at] + ["attribute \\keep_hierarchy 1"] + lines[at:]
        text.extend(lines)
    return "\n".join(text) + "\n"
