"""One generation in Amaranth's simulator with its waveform: the VCD and the GTKWave save file
beside it (``posdata sim --vcd``, the demo), each written whole or not at all."""

import os

from .outputs import Outputs


def generate_with_waveform(board, vcd: str, gtkw: str, option: str):
    """``board``'s moves from the gateware in Amaranth's simulator, traced, with the waveform in
    ``vcd`` and the save file in ``gtkw`` (``option`` names them in errors); both checked
    before the simulation starts."""
    from posdata.sim.drivers.gen_pysim import CLOCK_PERIOD, GTKW_GROUPS, PysimGenerator
    from posdata.sim.views.gtkw import write_gtkw

    with Outputs() as outputs:
        outputs.add(vcd, option)
        outputs.add(gtkw, option)
        with PysimGenerator(vcd=outputs.temp(vcd), trace=True,
                            variant=board.variant.name) as hw:
            result = hw.generate(board)
        write_gtkw(outputs.temp(vcd), outputs.temp(gtkw), GTKW_GROUPS, "start", "done",
                   round(CLOCK_PERIOD * 1e15))
        _name_dumpfile(outputs.temp(gtkw), vcd)
        outputs.commit()
    return result


def _name_dumpfile(gtkw: str, vcd: str) -> None:
    """Point the save file at the VCD's real name (it was written naming the temporary one);
    the name as the file system spells it, which need not be ASCII."""
    with open(gtkw, "rb") as f:
        lines = f.read().split(b"\n")
    lines = [b'[dumpfile] "' + os.fsencode(vcd) + b'"' if line.startswith(b"[dumpfile] ")
             else line for line in lines]
    with open(gtkw, "wb") as f:
        f.write(b"\n".join(lines))
