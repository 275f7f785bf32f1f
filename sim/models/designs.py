"""Every design that is compiled into a model or exported, described once: the gateware class it
elaborates (whose signature gives its ports), the Verilog module it is exported as, its one C
entry (sim/models/<design>_entry.cc, the same for CXXRTL and Verilator), what that entry is
written after and against, how the simulators clock and show it where they differ, its name in
messages and the simulator that runs it when none is named. The builders (sim.models.cxxrtl,
sim.models.verilator) write in front of the entry a prelude generated from the signature
(sim.models.entry_prelude: the model, its clock, an accessor per port); the export
(sim.models.verilog_export) and the targets (sim.drivers.targets) read it too: adding a design
is a description here, its entry and its tests."""

from dataclasses import dataclass, field
from importlib import import_module


@dataclass(frozen=True)
class Design:
    name: str
    module: str                 #: the gateware's module ...
    cls: str                    #: ... and class (its constructor takes the design's parameters)
    what: str                   #: in messages: "the perft chip"
    #: its C entry points (sim/models), written against the prelude's accessors (entry_prelude)
    entry: str
    #: the simulators that compile it
    simulators: tuple[str, ...] = ("cxxrtl", "verilator")
    verilog_module: str | None = None    #: the exported module's name (None: not exported)
    #: constructor parameters the export uses when none are given (the board's UART divisor)
    export_defaults: tuple[tuple[str, object], ...] = ()
    #: shared C++ (sim/models) written in front of the entry, after its defines
    shared: tuple[str, ...] = ()
    #: the entry is written against the hardware contract's constants (entry_constants)
    contract: bool = False
    #: CXXRTL compiles it unit by unit (sim.models.cxxrtl.UNIT_BY_UNIT's reason)
    unit_by_unit: bool = False
    #: CXXRTL's tick: "edge" clears the clock's last committed value and steps once (a rising
    #: edge for half the work of two steps), "steps" steps the clock low, then high (a model
    #: compiled unit by unit keeps a last value per unit, which "edge" would not clear);
    #: None: "steps" if unit_by_unit, else "edge"
    cxxrtl_tick: str | None = None
    #: inputs that power up at a value other than 0 (path as in the accessors: "rx")
    idle_inputs: tuple[tuple[str, int], ...] = ()
    #: outputs Verilator shows as they stood before the last edge, as the CXXRTL model (one
    #: flattened module) does: its step ends once its registers are committed, before its
    #: combinational outputs are worked out again. The others read as they stand after the
    #: edge under Verilator (entry_prelude's docstring).
    late_outputs: tuple[str, ...] = ()
    #: the engine packages its tables come from, beyond ENGINE_PACKAGES (whole: a model's key
    #: then cannot miss a table the gateware reads, and a changed key only regenerates the
    #: RTL, compiling again only if its text changed)
    engine_packages: tuple[str, ...] = ()
    #: Verilator lint warnings its Verilog raises beyond the shared ones: rule -> why waived
    lint_waivers: dict = field(default_factory=dict)
    #: what runs its compiled model when no simulator is named
    default_simulator: str = "cxxrtl"

    @property
    def tick(self) -> str:
        """CXXRTL's tick (cxxrtl_tick, resolved)."""
        return self.cxxrtl_tick or ("steps" if self.unit_by_unit else "edge")

    @property
    def verilator_prefix(self) -> str:
        """The C++ class Verilator makes of the exported module."""
        return f"V{self.verilog_module}"

    def elaborate(self, params: dict | None = None):
        return getattr(import_module(self.module), self.cls)(**(params or {}))


#: the engine package every design's tables and encodings come from
ENGINE_PACKAGES = ("engine.rules",)

DESIGNS = {d.name: d for d in (
    Design("generator", "posdata.hdl.gen.movegen", "MoveGenerator", "the generator",
           entry="gen_entry.cc", verilog_module="posdata_movegen"),
    Design("chip", "posdata.hdl.chip.perft_chip", "PerftChip", "the perft chip",
           entry="chip_entry.cc", verilog_module="posdata_chip", contract=True,
           unit_by_unit=True),
    Design("search", "posdata.hdl.search.search_thread", "SearchThread", "the search thread",
           entry="search_entry.cc", verilog_module="posdata_search",
           # stepped low, then high, as its entry always has been: one step is not
           # shown to give the same clocks on it
           cxxrtl_tick="steps",
           # the phase account counts each clock in the state it ran in (search_entry.cc)
           late_outputs=("phase",),
           # its evaluation's tables, hash keys, the mate score, the finder's order, the job's rules
           engine_packages=("engine.search",),
           lint_waivers={
               "UNSIGNED": "an argument check tests a field against a range that starts at 0 "
                           "(`x >= 0`)",
               "SYMRSVDWORD": "the thread's `abort` port is a C library name: Verilator "
                              "renames the variable (`__SYM__abort`), which only the entry "
                              "sees"},
           # Verilator's model compiles in about half CXXRTL's CPU (CXXRTL flattens it) and
           # runs 3-4 times as fast (bench/model_sim.py)
           default_simulator="verilator"),
    Design("board", "posdata.hdl.link.chip_frontend", "UartFrontEnd", "the board",
           entry="board_entry.cc", verilog_module="posdata_board",
           export_defaults=(("divisor", 33),), shared=("uart_line.h",), contract=True,
           idle_inputs=(("rx", 1),),  # the idle line
           # none depends on rx but through registers: before the edge is the clock just run
           late_outputs=("tx", "busy", "self_test"),
           lint_waivers={
               "UNSIGNED": "the front end's argument checks test a byte against a range that "
                           "starts at 0 (`x >= 0`): always true, as written, and kept for the "
                           "range's other end"},
           # as the search thread's, and 1.5 times as fast (bench/model_sim.py)
           default_simulator="verilator"),
    # the iCEBreaker's board: the generator alone behind the same UART protocol and line model
    Design("icebreaker", "posdata.hdl.link.gen_frontend", "GeneratorFrontEnd",
           "the iCEBreaker's board", entry="board_entry.cc", simulators=("cxxrtl",),
           shared=("uart_line.h",), contract=True, idle_inputs=(("rx", 1),)),
)}


def design(name: str, simulator: str | None = None) -> Design:
    """The design called ``name``; with ``simulator``, one that simulator builds. ValueError
    naming the choices otherwise."""
    has = {None: lambda d: True, "cxxrtl": lambda d: "cxxrtl" in d.simulators,
           "verilator": lambda d: "verilator" in d.simulators,
           "export": lambda d: d.verilog_module}
    found = DESIGNS.get(name)
    if found is None or not has[simulator](found):
        choices = ", ".join(n for n, d in DESIGNS.items() if has[simulator](d))
        under = f" for {simulator}" if simulator else ""
        raise ValueError(f"unknown design {name!r}{under}: choose from {choices}")
    return found
