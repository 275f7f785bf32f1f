"""make bench-hw: clock cycles of the gateware per generation on the six standard positions,
measured in Amaranth's cycle-accurate simulator, against the table steps of the walk.

Columns: cycles (measured), moves emitted, walk = ROM port A entries the walker consumes (one
per clock while both walk contexts are busy, see sim.model), pieces (each piece's start entry,
read ahead on ROM port B), steps = walk + pieces (every table entry visited), and the goal of
issue 3: cycles <= steps + pieces + small constant. The last line splits the clocks that consume
no entry, from the timing model's clock-by-clock trace.
"""

import sys

from posdata.engine.board import Board
from posdata.engine.positions import STANDARD_POSITIONS
from posdata.sim.model import predict
from posdata.sim.pysim_driver import PysimGenerator


def main() -> int:
    print("command: make bench-hw  (python bench/hw_cycles.py)")
    print(f"{'position':<10} {'cycles':>6} {'moves':>5} {'walk':>5} {'pieces':>6} {'steps':>5} "
          f"{'cyc/move':>8} {'steps/move':>10} {'steps+pieces':>12} {'model':>5}")
    hw = PysimGenerator()
    totals = [0, 0, 0, 0, 0]
    spare = {"start-up": 0, "idle": 0, "stalls": 0, "after": 0}  # clocks without an entry
    ok = True
    for pos in STANDARD_POSITIONS:
        board = Board(pos.fen)
        result = hw.generate(board)
        trace = []
        model = predict(board, trace)
        walked = [i + 1 for i, (square, _) in enumerate(trace) if square is not None]
        spare["start-up"] += walked[0] - 1
        spare["idle"] += walked[-1] - walked[0] + 1 - len(walked)
        spare["stalls"] += model.stalls
        spare["after"] += model.cycles - walked[-1]
        moves, pieces = len(result.moves), len(model.pieces)
        ok &= result.cycles == model.cycles and result.moves == board.moves()
        print(f"{pos.name:<10} {result.cycles:>6} {moves:>5} {model.walk_entries:>5} "
              f"{pieces:>6} {model.table_steps:>5} {result.cycles / moves:>8.2f} "
              f"{model.table_steps / moves:>10.2f} {model.table_steps + pieces:>12} "
              f"{model.cycles:>5}")
        for i, v in enumerate((result.cycles, moves, model.walk_entries, pieces,
                               model.table_steps)):
            totals[i] += v
    cycles, moves, walk, pieces, steps = totals
    print(f"{'all six':<10} {cycles:>6} {moves:>5} {walk:>5} {pieces:>6} {steps:>5} "
          f"{cycles / moves:>8.2f} {steps / moves:>10.2f} {steps + pieces:>12}")
    print(f"\ncycles per move {cycles / moves:.3f}; walk entries per move {walk / moves:.3f}; "
          f"table steps per move {steps / moves:.3f}")
    print(f"cycles - walk entries = {cycles - walk} over 6 generations:\n"
          f"  {spare['start-up']:>4} before the first step (5 each)\n"
          f"  {spare['idle']:>4} idle logic-stage clocks (clock 7, a context without a piece, "
          "the half-speed tail)\n"
          f"  {spare['stalls']:>4} stalls on a full FIFO\n"
          f"  {spare['after']:>4} after the last step (3 each, castling, merger backlog)")
    if not ok:
        print("MISMATCH: gateware disagrees with the reference or the timing model")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
