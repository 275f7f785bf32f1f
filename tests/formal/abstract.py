"""What the harnesses share: free (abstract) ROMs, a look inside an elaborated unit, and a
"previous cycle" register (Amaranth 0.5 has no Past).

The ROM abstraction: every property except the walk's own facts holds whatever the posdata ROM
holds, so the harnesses leave its words free (``AnySeq``: any word, every cycle) and the solver
need not carry 4,096 table entries. The table's facts (every walk progresses and comes home, how
long a generation can be) are checked on the engine's tables in Python
(tests/formal/test_table_facts.py).
"""

import contextlib

from amaranth import Module, Signal, Value
from amaranth.asserts import AnySeq
from amaranth.hdl import Fragment
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from posdata.hdl.gen import movegen
from posdata.hdl.gen.rom import ReadPort, StartPort


def past(m, value, name=None, init=0):
    """A register holding ``value`` as it was in the previous cycle. Call it outside any
    ``m.If``: its update must be unconditional. Not reset: a reset is something to observe."""
    reg = Signal(len(Value.cast(value)), name=name or "past", init=init, reset_less=True)
    m.d.sync += reg.eq(value)
    return reg


def free_read_port(m, port):
    """Drive a walk-ROM ReadPort's answer with any word."""
    m.d.comb += [port.data.eq(AnySeq(len(port.data))), port.ends.eq(AnySeq(len(port.ends)))]


def free_start_port(m, port):
    m.d.comb += port.data.eq(AnySeq(len(port.data)))


class FreeRom(wiring.Component):
    """Stands in for hdl.gen.rom.PosdataRom: two read ports whose words are free."""
    a: In(ReadPort)
    b: In(ReadPort)

    def __init__(self, layout=None, *variant_and_geometry):
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        free_read_port(m, self.a)
        free_read_port(m, self.b)
        return m


class FreeStarts(wiring.Component):
    """Stands in for hdl.gen.rom.StartRom / StartsFromWalkRom: start entries are free."""
    a: In(StartPort)
    b: In(StartPort)

    def __init__(self, layout=None, *variant_and_geometry):
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        free_start_port(m, self.a)
        free_start_port(m, self.b)
        return m


@contextlib.contextmanager
def abstract_roms(module=movegen):
    """While active, a unit built by ``module`` (hdl.gen.movegen, hdl.chip.perft_engine) gets free
    ROMs instead of the posdata tables."""
    saved = {name: getattr(module, name) for name in ("PosdataRom", "StartRom")}
    module.PosdataRom, module.StartRom = FreeRom, FreeStarts
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


class Inside:
    """An elaborated unit and what its elaboration made, for properties about a unit's parts
    (its FIFOs): ``Inside(unit, platform)`` elaborates it now, so the harness can name the
    parts' ports; add ``.fragment`` as the submodule in place of the unit."""

    def __init__(self, unit, platform, watch=()):
        self.made = {cls: [] for cls in watch}
        originals = {cls: cls.elaborate for cls in watch}

        def recorder(cls):
            def elaborate(obj, platform):
                result = originals[cls](obj, platform)
                self.made[cls].append((obj, result))
                return result
            return elaborate

        for cls in watch:
            cls.elaborate = recorder(cls)
        try:
            self.fragment = Fragment.get(unit, platform)
        finally:
            for cls, original in originals.items():
                cls.elaborate = original


def find_signals(fragment, path, *names):
    """Signals a unit assigns, by name: its internal registers, for the invariants that let an
    induction proof close (a proof needs them; a bounded check does not). ``fragment`` is an
    elaborated design (``Inside.fragment``), ``path`` the unit's submodule names within it
    ("" for the top, "core.merger" ...). Raises KeyError for a name the unit no longer has."""
    for name in filter(None, path.split(".")):
        fragment = next(f for f, n, *_ in fragment.subfragments if n == name)
    found = {}
    for statements in fragment.statements.values():
        for statement in statements:
            for signal in statement._lhs_signals():
                if signal.name in names:
                    found.setdefault(signal.name, signal)
    missing = set(names) - set(found)
    if missing:
        raise KeyError(f"no signal named {', '.join(sorted(missing))} in {path or 'the top'}")
    return [found[name] for name in names]
