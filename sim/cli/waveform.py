"""One generation in Amaranth's simulator with its waveform: the VCD and the GTKWave save file
beside it (``posdata sim --vcd``, the demo), each written whole or not at all."""

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
        # the save file names the VCD it opens: written once the VCD has its real name
        outputs.commit(vcd)
        write_gtkw(vcd, outputs.temp(gtkw), GTKW_GROUPS, "start", "done",
                   round(CLOCK_PERIOD * 1e15))
        outputs.commit(gtkw)
    return result
