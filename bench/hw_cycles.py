"""make bench-hw: clock cycles of the gateware per generation on the six standard positions,
measured in Amaranth's cycle-accurate simulator, against the table steps of the walk.

Columns: cycles (measured), moves emitted, walk = ROM port A entries the walker consumed (one
per clock while both walk contexts are busy), pieces (each piece's start entry, read ahead on
ROM port B), steps = walk + pieces (every table entry visited), and the goal of issue 3:
cycles <= steps + pieces + small constant. Every figure comes from the gateware's own trace
(sim.views.accounts); the walk entries are also counted from the engine's tables, and must agree.
The last lines split the clocks that consume no entry. Usage::

    .venv/bin/python bench/hw_cycles.py [--json FILE]
"""

import argparse
import sys

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.sim.drivers.gen_pysim import PysimGenerator
from posdata.sim.views.accounts import account, table_entries

from results import add_json_option, write_json


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_json_option(parser)
    args = parser.parse_args(argv)
    print("command: make bench-hw  (python bench/hw_cycles.py)")
    print(f"{'position':<10} {'cycles':>6} {'moves':>5} {'walk':>5} {'pieces':>6} {'steps':>5} "
          f"{'cyc/move':>8} {'steps/move':>10} {'steps+pieces':>12}")
    hw = PysimGenerator(trace=True)
    totals = [0, 0, 0, 0, 0]
    spare = {"start-up": 0, "idle": 0, "stalls": 0, "after": 0}  # clocks without an entry
    ok = True
    rows = []
    for pos in STANDARD_POSITIONS:
        board = Board(pos.fen)
        result = hw.generate(board)
        acct = account(board, result.trace)
        spare["start-up"] += acct.startup
        spare["idle"] += acct.idle
        spare["stalls"] += acct.stalls
        spare["after"] += acct.after
        moves, pieces = len(result.moves), len(acct.pieces)
        from_tables = sum(len(table_entries(board, p.square)) for p in acct.pieces)
        ok &= result.moves == board.moves() and acct.walk_entries == from_tables
        print(f"{pos.name:<10} {result.cycles:>6} {moves:>5} {acct.walk_entries:>5} "
              f"{pieces:>6} {acct.table_steps:>5} {result.cycles / moves:>8.2f} "
              f"{acct.table_steps / moves:>10.2f} {acct.table_steps + pieces:>12}")
        for i, v in enumerate((result.cycles, moves, acct.walk_entries, pieces,
                               acct.table_steps)):
            totals[i] += v
        rows.append({"position": pos.name, "cycles": result.cycles, "moves": moves,
                     "walk_entries": acct.walk_entries, "pieces": pieces,
                     "table_steps": acct.table_steps})
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
        print("MISMATCH: the gateware disagrees with the reference generator or the tables")
    write_json(args.json, {"cycles": cycles, "moves": moves, "walk_entries": walk,
                           "pieces": pieces, "table_steps": steps,
                           "cycles_per_move": round(cycles / moves, 3),
                           "walk_entries_per_move": round(walk / moves, 3),
                           "spare_clocks": spare, "positions": rows, "ok": ok})
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
