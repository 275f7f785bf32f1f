"""Drives the gateware in Amaranth's simulator (the golden model; optional VCD + GTKWave save
file). One ``generate(board)`` call loads what changed, starts the generator and collects the
moves and the cycle count, clock by clock."""

from posdata.hdl.gen.movegen import MoveGenerator
from posdata.hdl.image.variant import hardware_name

from ..views.accounts import Clock
from .interface import (
    Generation,
    ShadowBoard,
    VariantCheck,
    WatchdogError,
    castling_input,
    position_inputs,
)
from .pysim_runner import CLOCK_PERIOD, PysimRunner

VCD_TAIL_CLOCKS = 20

#: the save file's groups: (title, module under the top, signals; ``view.*``: a View's fields)
GTKW_GROUPS = [
    ("square writes", "", ["wr_en", "wr_sq", "wr_color", "wr_piece"]),
    ("position", "", ["side", "castle", "ep_valid", "ep_sq"]),
    ("control", "", ["start", "busy", "done", "cycles"]),
    ("walker", "", ["walking", "stepping", "walk_from"]),
    ("walker context in the logic stage (ring_l)", "core.walker", ["ring_l.*"]),
    ("walker context in the ROM stage (ring_r)", "core.walker", ["ring_r.*"]),
    ("moves out", "", ["moves__valid", "moves__ready", "moves__payload.*"]),
]


class PysimGenerator(PysimRunner):
    """``ready`` is an optional callable ``ready(cycle) -> bool`` for backpressure tests;
    ``watchdog`` bounds the cycles of one generation (a stuck FSM fails instead of hanging);
    ``variant`` (an engine.rules.variants name) picks the tables the gateware is built with."""

    def __init__(self, vcd=None, gtkw=None, ready=None, watchdog: int = 20_000, dut=None,
                 trace: bool = False, layout: str | None = None, variant: str = "chess"):
        if dut is None:
            options = {"layout": layout} if layout else {}
            dut = MoveGenerator(variant=hardware_name(variant), **options)
        self.check_variant = VariantCheck(variant)
        self.ready = ready
        self.trace = trace
        self.watchdog = watchdog
        self.shadow = ShadowBoard()
        d = dut
        traces = [d.wr_en, d.wr_sq, d.wr_color, d.wr_piece, d.side, d.castle, d.ep_valid,
                  d.ep_sq, d.start, d.busy, d.walking, d.stepping, d.walk_from, d.moves.valid,
                  d.moves.ready, d.moves.payload, d.done, d.cycles]
        # Amaranth's save file is not wanted: close writes ours from the finished VCD
        # (sim.views.gtkw: zoom, markers, names)
        super().__init__(dut, vcd, None, traces)
        self._vcd_path, self._gtkw = vcd, gtkw

    def close(self) -> None:
        # idle clocks after done: GTKWave resets a view that would pass the dump's end
        if super().close(tail_clocks=VCD_TAIL_CLOCKS) and self._gtkw:
            from ..views.gtkw import write_gtkw
            write_gtkw(self._vcd_path, self._gtkw, GTKW_GROUPS, "start", "done",
                       round(CLOCK_PERIOD * 1e15))

    def generate(self, board) -> Generation:
        self.check_variant(board)
        writes = self.shadow.diff(board)
        inputs = position_inputs(board)
        inputs["castling"] = castling_input(board)
        return self.ask(self._one_generation, writes, inputs)

    async def _one_generation(self, ctx, writes, inputs) -> Generation:
        dut = self.dut
        await write_squares(ctx, dut, writes)
        await start(ctx, dut, inputs, ready=1 if self.ready is None else int(self.ready(0)))
        trace = [] if self.trace else None
        moves = await collect_moves(ctx, dut, self.watchdog, self.ready, trace)
        return Generation(moves, ctx.get(dut.cycles), len(writes), trace)


# Testbench steps, shared with the protocol tests.

async def write_squares(ctx, dut, writes) -> None:
    for sq, color, piece in writes:
        ctx.set(dut.wr_en, 1)
        ctx.set(dut.wr_sq, sq)
        ctx.set(dut.wr_color, color)
        ctx.set(dut.wr_piece, piece)
        await ctx.tick()
    ctx.set(dut.wr_en, 0)


async def start(ctx, dut, inputs, ready=1) -> None:
    for name, value in inputs.items():
        port = getattr(dut, name)
        ctx.set(port.as_value() if hasattr(port, "as_value") else port, value)
    ctx.set(dut.start, 1)
    ctx.set(dut.moves.ready, ready)
    await ctx.tick()
    ctx.set(dut.start, 0)


async def collect_moves(ctx, dut, watchdog, ready=None, trace=None) -> list[int]:
    """Take moves until ``done``; ``ready(cycle)`` drives backpressure when given. With a
    ``trace`` list, append a ``sim.views.accounts.Clock`` per busy cycle."""
    moves = []
    payload = dut.moves.payload.as_value()
    for cycle in range(1, watchdog):
        (_, _, valid, rdy, word, done, busy, walking, stepping,
         walk_from) = await ctx.tick().sample(dut.moves.valid, dut.moves.ready, payload,
                                              dut.done, dut.busy, dut.walking, dut.stepping,
                                              dut.walk_from)
        taken = valid and rdy
        if taken:
            moves.append(word)
        if trace is not None and busy:
            trace.append(Clock(walk_from if walking else None, bool(stepping),
                               word if taken else None))
        if done:
            return moves
        if ready is not None:
            ctx.set(dut.moves.ready, int(ready(cycle)))
    raise WatchdogError(f"generation did not finish within {watchdog} cycles")
