"""The pysim drivers' persistent simulation (sim.drivers.pysim_runner): one simulation serves
call after call with the clock running between them; a refusal raised by the work is raised from
``ask`` and the next call is served; any answer comes back, None included. On a counter."""

import pytest
from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

from posdata.sim.drivers.interface import WatchdogError
from posdata.sim.drivers.pysim_runner import PysimRunner


class Counter(wiring.Component):
    count: Out(16)

    def elaborate(self, platform):
        m = Module()
        m.d.sync += self.count.eq(self.count + 1)
        return m


class Clocks(PysimRunner):
    def __init__(self):
        super().__init__(Counter())

    def after(self, clocks: int):
        return self.ask(self._after, clocks)

    async def _after(self, ctx, clocks):
        if clocks < 0:
            raise WatchdogError("no such wait")
        if clocks:
            await ctx.tick().repeat(clocks)
        return ctx.get(self.dut.count)


def test_calls_are_served_in_one_simulation():
    with Clocks() as sim:
        first = sim.after(5)
        assert sim.after(3) == first + 3 + 1  # the testbench's idle tick between the two calls


def test_a_refusal_is_raised_and_the_next_call_served():
    sim = Clocks()
    with pytest.raises(WatchdogError, match="no such wait"):
        sim.after(-1)
    assert sim.after(2) > 2


def test_none_is_an_answer():
    sim = Clocks()
    assert sim.ask(nothing) is None


async def nothing(ctx):
    return None


def test_another_exception_ends_the_simulation():
    async def broken(ctx):
        raise KeyError("broken")

    with pytest.raises(KeyError):
        Clocks().ask(broken)


def test_a_vcd_is_finished_by_close(tmp_path):
    vcd = tmp_path / "c.vcd"
    sim = PysimRunner(Counter(), vcd=str(vcd), traces=[])
    assert sim.ask(nothing) is None
    assert sim.close(tail_clocks=4) and not sim.close()
    assert "$enddefinitions" in vcd.read_text()
