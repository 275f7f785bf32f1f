"""The prelude generated for a design's C entry (sim.models.entry_prelude, issue 42): its ports
are those Amaranth gives the converted module, named as each simulator names them; what a
description says of its ports (idle inputs, late outputs, Verilator's renamed words) holds."""

import dataclasses
import re

import pytest

from posdata.sim.models.designs import DESIGNS
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


@pytest.mark.parametrize("name", [n for n, d in DESIGNS.items() if d.verilator_entry])
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
