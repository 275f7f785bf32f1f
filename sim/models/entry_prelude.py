"""The C++ written in front of a design's C entry (sim/models/<design>_entry.cc), generated for
each simulator from the design's signature, so that one entry serves CXXRTL and Verilator: a
``Sim`` struct that holds the model, powers it up, clocks it (``tick()``, counting ``clocks``)
and reads and writes each port by its path in the signature (``set_wr_en(v)``,
``get_moves_valid()``; an array's elements also all at once, ``get_phases(out)``).

Ports: Amaranth's ``clk`` and ``rst`` (the ``sync`` domain's), then the signature's members,
flattened; the top-level port of member ``a.b`` is ``a__b``, which CXXRTL calls ``p_a____b``
(every ``_`` doubled) and Verilator ``a___05Fb`` (``__`` written ``___05F``; a C++ word, as
``abort``, renamed ``__SYM__abort``: VERILATOR_RENAMED). An accessor takes or returns
``uint32_t`` up to 32 bits, ``uint64_t`` up to 64, and a port any wider as 32-bit words, least
significant first (CXXRTL's chunks and Verilator's words alike). Values written must fit the
port: neither simulator masks them.

Where the simulators differ, the prelude (and designs.Design) says how:

* power-up: Verilator's variables start as POSDATA_X_SEED asks (the model is built with
  ``--x-initial unique``: 0 or unset, all zeros; else random values from that seed), inputs
  included, so every input is set (0, or designs.Design.idle_inputs) before the first eval;
  CXXRTL's values start at 0, and only the idle inputs are set before its first step.
* the clock: Verilator sees a rising edge when ``clk`` goes from 0 to 1 between two evals, so a
  tick is clk = 1, eval, clk = 0, eval (the second only settles: no logic runs on a falling
  edge). CXXRTL's is designs.Design.tick: "edge" clears ``prev_p_clk`` (the clock as of the
  last commit) and steps once with the clock high, "steps" steps it low, then high.
* what an output shows after a tick: CXXRTL's flattened models end a step once the registers
  are committed, before the combinational outputs are worked out again, so those show the
  clock just run; Verilator's show the new one. Verilator reads designs.Design.late_outputs as
  they stood before the edge, as CXXRTL shows them.
"""

import re
from dataclasses import dataclass
from importlib import resources

from .designs import design as described

#: port names Verilator renames ``__SYM__<name>``: C++ words (its SYMRSVDWORD warning, which
#: the design waives: designs.Design.lint_waivers). A port named after another C++ word fails
#: the build at that warning; its name goes here with the waiver (a test holds the two
#: together).
VERILATOR_RENAMED = frozenset({"abort"})


@dataclass(frozen=True)
class Port:
    path: tuple          #: in the signature: ("moves", "valid"), ("phases", 0)
    width: int
    input: bool

    @property
    def name(self) -> str:
        """Amaranth's name for the top-level port."""
        return "__".join(map(str, self.path))

    @property
    def accessor(self) -> str:
        """What the entry calls it: set_<accessor>, get_<accessor>."""
        return "_".join(map(str, self.path))

    @property
    def ctype(self) -> str:
        return "uint32_t" if self.width <= 32 else "uint64_t" if self.width <= 64 else ""

    @property
    def words(self) -> int:
        return (self.width + 31) // 32


def ports(component) -> list[Port]:
    """The top-level ports of ``component`` (an Amaranth wiring.Component), as Amaranth names
    them when it converts the component (amaranth.back.rtlil.convert)."""
    from amaranth.hdl import Value
    from amaranth.lib.wiring import In
    found = [Port(("clk",), 1, True), Port(("rst",), 1, True)]
    for path, member, value in component.signature.flatten(component):
        found.append(Port(tuple(path), len(Value.cast(value)), member.flow == In))
    accessors = [p.accessor for p in found]
    twice = {a for a in accessors if accessors.count(a) > 1}
    if twice:
        raise ValueError(f"ports with the same accessor name: {', '.join(sorted(twice))}")
    return found


def for_ports(component):
    """``component``, made only to read its ports: never elaborated, so neither it nor the parts
    its constructor made are for Amaranth to warn about (UnusedElaboratable)."""
    from amaranth.hdl import Elaboratable
    pending, seen = [component], set()
    while pending:
        item = pending.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, Elaboratable):
            item._MustUse__silence = True
            pending.extend(vars(item).values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
        elif isinstance(item, dict):
            pending.extend(item.values())
    return component


def cxxrtl_member(port: Port) -> str:
    """CXXRTL's name for the port (Yosys write_cxxrtl's mangling of a public name)."""
    return "p_" + "".join(c if c.isalnum() else "__" if c == "_" else f"_{ord(c):02x}_"
                          for c in port.name)


def verilator_member(port: Port) -> str:
    """Verilator's name for the port (its encoding of an identifier, then its reserved words)."""
    name = port.name
    if name in VERILATOR_RENAMED:
        return "__SYM__" + name
    return re.sub("__", "___05F", name)


def arrays(found: list[Port]) -> dict[str, list[Port]]:
    """The ports that are an array's elements (path ending 0, 1, ...), by the array's accessor
    name: read or written all at once too."""
    groups: dict[tuple, list[Port]] = {}
    for port in found:
        if isinstance(port.path[-1], int):
            groups.setdefault(port.path[:-1], []).append(port)
    return {"_".join(map(str, path)): elements for path, elements in groups.items()
            if [p.path[-1] for p in elements] == list(range(len(elements)))
            and len({(p.width, p.input) for p in elements}) == 1 and elements[0].ctype}


class _Syntax:
    """How a simulator's model is held, powered up and clocked, and its ports named, written
    and read (``m``: the port's member, ``p``: the port)."""

    def member(self, p: Port) -> str: ...
    def store(self, m: str, p: Port) -> str: ...
    def load(self, m: str, p: Port) -> str: ...
    def store_word(self, m: str) -> str: ...
    def load_word(self, m: str) -> str: ...


class _Cxxrtl(_Syntax):
    def member(self, p):
        return "top." + cxxrtl_member(p)

    def store(self, m, p):
        return f"{m}.set<{p.ctype}>(v)"

    def load(self, m, p):
        return f"{m}.get<{p.ctype}>()"  # a value's, or a wire's current value

    def store_word(self, m):
        return f"posdata_in_words({m})[i] = words[i]"

    def load_word(self, m):
        return f"words[i] = posdata_out_words({m})[i]"


class _Verilator(_Syntax):
    def member(self, p):
        return "top->" + verilator_member(p)

    def store(self, m, p):
        return f"{m} = v"

    def load(self, m, p):
        return m

    def store_word(self, m):
        return f"{m}[i] = words[i]"

    def load_word(self, m):
        return f"words[i] = {m}[i]"


def _accessors(found: list[Port], syntax: _Syntax, late=()) -> list[str]:
    """An accessor per port, then per array; ``late`` outputs read from ``late_<accessor>``."""
    lines = []
    for p in found[1:]:  # not the clock: tick() drives it
        m, what = syntax.member(p), f"// {p.name}, {p.width} bit{'s' if p.width > 1 else ''}"
        if p.input and p.ctype:
            lines.append(f"void set_{p.accessor}({p.ctype} v) {{ {syntax.store(m, p)}; }}  "
                         f"{what}")
        elif p.input:
            lines.append(f"void set_{p.accessor}(const uint32_t *words) {{ for (size_t i = 0; "
                         f"i < {p.words}; i++) {syntax.store_word(m)}; }}  {what}")
        elif p.accessor in late:
            lines.append(f"{p.ctype} get_{p.accessor}() const {{ return late_{p.accessor}; }}  "
                         f"{what}, before the last edge")
        elif p.ctype:
            lines.append(f"{p.ctype} get_{p.accessor}() const {{ return {syntax.load(m, p)}; }}"
                         f"  {what}")
        else:
            lines.append(f"void get_{p.accessor}(uint32_t *words) const {{ for (size_t i = 0; "
                         f"i < {p.words}; i++) {syntax.load_word(m)}; }}  {what}")
    for name, elements in arrays(found).items():
        t, n = elements[0].ctype, len(elements)
        lines.append(f"static constexpr int {name}_count = {n};")
        if elements[0].input:
            body = " ".join(f"set_{p.accessor}(in[{i}]);" for i, p in enumerate(elements))
            lines.append(f"void set_{name}(const {t} *in) {{ {body} }}")
        else:
            body = " ".join(f"out[{i}] = get_{p.accessor}();" for i, p in enumerate(elements))
            lines.append(f"void get_{name}({t} *out) const {{ {body} }}")
    return lines


def _checked(described_design, found: list[Port]) -> None:
    """The description's idle inputs and late outputs name ports that can be so."""
    by_name = {p.accessor: p for p in found}
    for name, _ in described_design.idle_inputs:
        if name not in by_name or not by_name[name].input or not by_name[name].ctype:
            raise ValueError(f"{described_design.what}: idle input {name!r} is not an input "
                             f"of at most 64 bits")
    for name in described_design.late_outputs:
        if name not in by_name or by_name[name].input or not by_name[name].ctype:
            raise ValueError(f"{described_design.what}: late output {name!r} is not an output "
                             f"of at most 64 bits")


def prelude(design: str, simulator: str, component) -> str:
    """The C++ in front of ``design``'s entry under ``simulator`` ("cxxrtl", "verilator"), for
    the ports of ``component`` (the instance the model is built from)."""
    d = described(design, simulator)
    found = ports(component)
    _checked(d, found)
    idle = dict(d.idle_inputs)
    wide = any(not p.ctype for p in found)
    where = f"{d.module}.{d.cls}"
    if simulator == "cxxrtl":
        syntax = _Cxxrtl()
        head = ["// The CXXRTL model behind an accessor per port, generated by "
                "sim.models.entry_prelude",
                f"// from the signature of {where} ({d.what}).",
                "#include <cstddef>", "#include <cstdint>", "", "namespace {", ""]
        if wide:  # a wide port's 32-bit chunks: a value's, or a wire's (next to write)
            head += ["template <size_t N> uint32_t *posdata_in_words(cxxrtl::value<N> &v) "
                     "{ return v.data; }",
                     "template <size_t N> uint32_t *posdata_in_words(cxxrtl::wire<N> &w) "
                     "{ return w.next.data; }",
                     "template <size_t N> const uint32_t *posdata_out_words("
                     "const cxxrtl::value<N> &v) { return v.data; }",
                     "template <size_t N> const uint32_t *posdata_out_words("
                     "const cxxrtl::wire<N> &w) { return w.curr.data; }", ""]
        powered = [f"    {syntax.member(p)}.set<{p.ctype}>({idle[p.accessor]}u);"
                   for p in found if p.accessor in idle]
        body = ["  cxxrtl_design::p_top top;",
                "  uint64_t clocks = 0;  // ticks so far", "",
                "  // power-up: the inputs at 0 (CXXRTL's values start so) or idle, settled",
                "  Sim() {", *powered, "    top.step();", "  }"]
        if d.tick == "edge":
            tick = ["  // a rising edge: the clock as of the last commit cleared, one step with it "
                    "high", "  void tick() {", "    top.prev_p_clk = cxxrtl::value<1>{0u};",
                    "    top.p_clk.set<bool>(true);", "    top.step();", "    clocks++;", "  }"]
        else:
            tick = ["  // a falling, then a rising edge: a step each", "  void tick() {",
                    "    top.p_clk.set<bool>(false);", "    top.step();",
                    "    top.p_clk.set<bool>(true);", "    top.step();", "    clocks++;", "  }"]
        late = ()
    else:
        syntax = _Verilator()
        prefix = d.verilator_prefix
        head = [f"// The Verilator model (class {prefix}) behind an accessor per port, "
                "generated by",
                f"// sim.models.entry_prelude from the signature of {where} ({d.what}).",
                "#include <cstddef>", "#include <cstdint>", "#include <cstdlib>", "",
                f'#include "{prefix}.h"', '#include "verilated.h"', "", "namespace {", ""]
        late = d.late_outputs
        by_name = {p.accessor: p for p in found}
        powered = []
        for p in found:
            if not p.input:
                continue
            m = syntax.member(p)
            powered.append(f"    {m} = {idle.get(p.accessor, 0)};" if p.ctype else
                           f"    for (size_t i = 0; i < {p.words}; i++) {m}[i] = 0;")
        samples = [f"    late_{name} = {syntax.member(by_name[name])};" for name in late]
        body = ["  VerilatedContext context;", f"  {prefix} *top;",
                "  uint64_t clocks = 0;  // ticks so far",
                *(f"  {by_name[name].ctype} late_{name} = 0;  // as it stood before the last "
                  f"edge" for name in late), "",
                "  Sim() {",
                '    const char *text = std::getenv("POSDATA_X_SEED");',
                "    uint32_t seed = text ? static_cast<uint32_t>(std::strtoul(text, nullptr, "
                "10)) : 0;",
                "    if (seed) {",
                "      context.randReset(2);  // 2: randomise every X-initialised variable",
                "      context.randSeed(static_cast<int>(seed));",
                "    }",
                f"    top = new {prefix}(&context);",
                "    // inputs are variables too, random under a seed: a host drives every one "
                "(a random",
                "    // `start` would begin work before the host's first load)",
                *powered, "    top->eval();", *(["    sample();"] if late else []), "  }",
                "  ~Sim() {", "    top->final();", "    delete top;", "  }"]
        tick = [*(["  void sample() {", *samples, "  }", ""] if late else []),
                "  // a rising edge, then a settling eval", "  void tick() {",
                *(["    sample();"] if late else []),
                "    top->clk = 1;", "    top->eval();", "    top->clk = 0;", "    top->eval();",
                "    clocks++;", "  }"]
    return "\n".join([
        *head, "struct Sim {", *body,
        "  Sim(const Sim &) = delete;", "  Sim &operator=(const Sim &) = delete;", "",
        *tick, "", *("  " + line for line in _accessors(found, syntax, late)), "};", "",
        "}  // namespace", "", ""])


def entry_text(design: str) -> str:
    """The design's C entry as written (designs.Design.entry)."""
    return (resources.files("posdata.sim.models") / described(design).entry).read_text()
