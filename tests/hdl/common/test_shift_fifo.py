"""hdl.common.shift_fifo.ShiftFIFO against Amaranth's SyncFIFO (the independent oracle), side by
side in Amaranth's simulator under the same random reads and writes: readiness, level and the head's
data equal in every clock."""

import random

import pytest
from amaranth import Module
from amaranth.lib.fifo import SyncFIFO
from amaranth.sim import Simulator

from posdata.hdl.common.shift_fifo import ShiftFIFO


@pytest.mark.parametrize("depth, seed", [(1, 1), (2, 2), (16, 3), (16, 4)])
def test_shift_fifo_equals_sync_fifo(depth, seed):
    m = Module()
    m.submodules.ref = ref = SyncFIFO(width=8, depth=depth)
    m.submodules.dut = dut = ShiftFIFO(width=8, depth=depth)
    rng = random.Random(seed)
    clocks = 3000
    checked = []

    async def bench(ctx):
        for clock in range(clocks):
            # phases that fill and drain, so full and empty are both reached often
            bias = 0.8 if (clock // 100) % 2 else 0.2
            w_en, r_en, data = rng.random() < bias, rng.random() < 1 - bias, rng.randrange(256)
            for f in (ref, dut):
                ctx.set(f.w_en, w_en)
                ctx.set(f.r_en, r_en)
                ctx.set(f.w_data, data)
            got = [ctx.get(dut.w_rdy), ctx.get(dut.r_rdy), ctx.get(dut.level)]
            want = [ctx.get(ref.w_rdy), ctx.get(ref.r_rdy), ctx.get(ref.level)]
            if want[1]:
                got.append(ctx.get(dut.r_data))
                want.append(ctx.get(ref.r_data))
            assert got == want, f"clock {clock}: (w_rdy, r_rdy, level, head) {got} != {want}"
            checked.append((want[0], want[1]))
            await ctx.tick()

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert len(checked) == clocks
    assert (0, 1) in checked and (1, 0) in checked  # full and empty both happened
