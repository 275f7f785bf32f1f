"""The prelude in front of every design's one C entry (sim.models.entry_prelude, issue 42): its
ports are those Amaranth gives the converted module, named as each simulator names them; what a
description says of its ports (idle inputs, late outputs, Verilator's renamed words) holds; and
a port wider than 64 bits goes through as 32-bit words under both simulators."""

import ctypes
import dataclasses
import re

import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from posdata.sim.drivers import targets
from posdata.sim.models import cxxrtl, verilator
from posdata.sim.models.designs import DESIGNS, Design
from posdata.sim.models.entry_prelude import (
    Port,
    cxxrtl_member,
    for_ports,
    ports,
    prelude,
    verilator_member,
)
from posdata.sim.models.verilog_export import module_name, rtlil_text


def top_ports(design: str) -> set[tuple[str, int, bool]]:
    """(name, width, input) of each port of the design's converted top module."""
    il = rtlil_text(design)
    top = next(m for m in il.split("\nmodule ")[1:]
               if m.startswith(f"\\{module_name(design)}\n"))
    return {(name, int(width), flow == "input") for width, flow, name in
            re.findall(r"wire width (\d+) (input|output) \d+\s+\\(\S+)", top)}


@pytest.mark.parametrize("design", ["generator", "chip"])
def test_the_ports_are_the_converted_modules(design):
    found = ports(for_ports(DESIGNS[design].elaborate()))
    assert {(p.name, p.width, p.input) for p in found} == top_ports(design)


def test_each_simulator_names_a_port_its_way():
    nested, flat, array = Port(("moves", "valid"), 1, False), Port(("solo_engine",), 8, True), \
        Port(("phases", 0), 3, False)
    assert [cxxrtl_member(p) for p in (nested, flat, array)] == \
        ["p_moves____valid", "p_solo__engine", "p_phases____0"]
    assert [verilator_member(p) for p in (nested, flat, array)] == \
        ["moves___05Fvalid", "solo_engine", "phases___05F0"]
    assert verilator_member(Port(("abort",), 1, True)) == "__SYM__abort"


@pytest.mark.parametrize("name", [n for n, d in DESIGNS.items() if "verilator" in d.simulators])
def test_a_renamed_port_is_a_waived_warning(name):
    """Verilator renames a port named as a C++ word and warns (SYMRSVDWORD): the description
    waives the warning exactly when the prelude renames a port."""
    found = ports(for_ports(DESIGNS[name].elaborate(dict(DESIGNS[name].export_defaults))))
    renamed = [p.name for p in found if verilator_member(p).startswith("__SYM__")]
    assert bool(renamed) == ("SYMRSVDWORD" in DESIGNS[name].lint_waivers), renamed


def test_the_late_and_idle_ports_are_the_designs():
    board = DESIGNS["board"]
    text = prelude("board", "verilator", for_ports(board.elaborate({"divisor": 4})))
    assert "top->rx = 1;" in text and "return late_tx;" in text
    assert "late_tx = top->tx;" in text.split("void sample()")[1]
    assert text.split("void tick() {")[1].split(";")[0].strip() == "sample()"  # before the edge
    assert "top.p_rx.set<uint32_t>(1u);" in \
        prelude("board", "cxxrtl", for_ports(board.elaborate({"divisor": 4})))


@pytest.mark.parametrize("change, message", [({"late_outputs": ("rx",)}, "late output"),
                                             ({"idle_inputs": (("tx", 1),)}, "idle input")])
def test_a_description_naming_no_such_port_is_refused(monkeypatch, change, message):
    monkeypatch.setitem(DESIGNS, "board", dataclasses.replace(DESIGNS["board"], **change))
    with pytest.raises(ValueError, match=message):
        prelude("board", "verilator", for_ports(DESIGNS["board"].elaborate({"divisor": 4})))


class Wide(wiring.Component):
    """A port wider than 64 bits in, the same a clock later out."""
    a: In(100)
    b: Out(100)

    def elaborate(self, platform):
        m = Module()
        m.d.sync += self.b.eq(self.a)
        return m


WIDE_ENTRY = """
extern "C" {
void *wide_create() { return new Sim(); }
void wide_destroy(void *handle) { delete static_cast<Sim *>(handle); }
// a in, two clocks (CXXRTL's flattened model shows b a clock late), b out
void wide_cycle(void *handle, const uint32_t *in, uint32_t *out) {
  Sim &sim = *static_cast<Sim *>(handle);
  sim.set_a(in);
  sim.tick();
  sim.tick();
  sim.get_b(out);
}
}
"""


@pytest.mark.parametrize("simulator", ["cxxrtl", "verilator"])
def test_a_wide_port_goes_through_as_words(monkeypatch, simulator):
    if simulator == "verilator" and not targets.verilator_installed():
        pytest.skip("Verilator is not installed")
    monkeypatch.setitem(DESIGNS, "wide", Design("wide", __name__, "Wide", "a wide port",
                                                entry="wide_entry.cc",
                                                verilog_module="posdata_wide"))
    build = cxxrtl if simulator == "cxxrtl" else verilator
    monkeypatch.setattr(build, "entry_text", lambda design: WIDE_ENTRY)
    lib = ctypes.CDLL(build.build_library(dut=Wide(), design="wide"))
    lib.wide_create.restype = ctypes.c_void_p
    lib.wide_destroy.argtypes = [ctypes.c_void_p]
    words = ctypes.POINTER(ctypes.c_uint32)
    lib.wide_cycle.argtypes = [ctypes.c_void_p, words, words]
    handle = lib.wide_create()
    try:
        value = (1 << 99) | 0x0123_4567_89ab_cdef_0246_8ace
        given = (ctypes.c_uint32 * 4)(*((value >> (32 * i)) & 0xffff_ffff for i in range(4)))
        got = (ctypes.c_uint32 * 4)()
        lib.wide_cycle(handle, given, got)
        assert sum(w << (32 * i) for i, w in enumerate(got)) == value
    finally:
        lib.wide_destroy(handle)
