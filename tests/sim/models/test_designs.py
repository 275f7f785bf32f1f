"""Each compiled design described once (sim.models.designs, issue 42): every description names
a gateware class that exists, an entry and shared files that are in the package, ports that its
signature has; the builders, the export and the targets read the descriptions (an unknown design
is one line naming the choices)."""

import importlib
from importlib import resources

import pytest

from posdata.sim.drivers import targets
from posdata.sim.models import verilator, verilog_export
from posdata.sim.models.designs import DESIGNS, design
from posdata.sim.models.entry_shared import shared_files

PACKAGE = resources.files("posdata.sim.models")


@pytest.mark.parametrize("name", DESIGNS)
def test_a_description_names_what_exists(name):
    d = DESIGNS[name]
    assert d.name == name
    assert callable(getattr(importlib.import_module(d.module), d.cls))
    for entry in (d.entry, *d.shared):
        assert PACKAGE.joinpath(entry).is_file(), entry
    assert set(d.simulators) <= {"cxxrtl", "verilator"} and d.simulators
    if "verilator" in d.simulators:
        assert d.verilog_module, "Verilator builds from the exported module"
    assert d.tick in ("edge", "steps") and (d.tick == "steps" or not d.unit_by_unit)
    assert d.default_simulator in d.simulators


def test_the_readers_take_the_descriptions():
    assert verilog_export.module_name("search") == DESIGNS["search"].verilog_module
    assert shared_files("icebreaker") == DESIGNS["icebreaker"].shared
    assert set(verilator.waivers("board")) == \
        set(verilator.LINT_WAIVERS) | set(DESIGNS["board"].lint_waivers)
    if targets.verilator_installed():
        assert targets.model_default("search") == DESIGNS["search"].default_simulator


@pytest.mark.parametrize("name, simulator", [("nosuch", None), ("icebreaker", "verilator"),
                                             ("icebreaker", "export")])
def test_an_unknown_design_is_one_line_naming_the_choices(name, simulator):
    with pytest.raises(ValueError) as info:
        design(name, simulator)
    message = str(info.value)
    assert "\n" not in message and "choose from" in message and "generator" in message
