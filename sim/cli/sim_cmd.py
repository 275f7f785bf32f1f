"""posdata sim: one generation in Amaranth's cycle-accurate simulator, with the cycle at which
each move appeared and an account, per piece, of where the clocks went."""

import os

from .common import (
    CliError,
    add_json_arg,
    add_position_args,
    add_variant_arg,
    describe,
    load_board,
    print_json,
    require_runs,
)
from .waveform import generate_with_waveform


def register(sub) -> None:
    p = sub.add_parser(
        "sim", help="run the gateware in the cycle-accurate simulator on one position",
        description="Load a position into the simulated gateware, generate its moves and show "
                    "when each one left the generator, the total cycles, cycles per move, and "
                    "per piece the table entries visited and clocks spent. --vcd writes a "
                    "waveform (and a GTKWave save file next to it).")
    add_position_args(p)
    add_variant_arg(p)
    p.add_argument("--vcd", metavar="FILE", help="write a VCD waveform of the run to FILE "
                   "(and FILE with .gtkw to open it in GTKWave with useful traces)")
    add_json_arg(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from posdata.sim.drivers.gen_pysim import PysimGenerator
    from posdata.sim.views.accounts import account

    board = load_board(args)
    require_runs(args, "gen")  # the generator in Amaranth's simulator
    vcd = gtkw = None
    if args.vcd is not None:
        vcd = args.vcd
        gtkw = os.path.splitext(args.vcd)[0] + ".gtkw"
        if os.path.splitext(args.vcd)[1] == ".gtkw":
            raise CliError(f"--vcd {args.vcd}: the waveform would be its own GTKWave save file "
                           "(FILE.gtkw goes next to FILE); name it .vcd")
        result = generate_with_waveform(board, vcd, gtkw, "--vcd")
    else:
        with PysimGenerator(trace=True, variant=board.variant.name) as hw:
            result = hw.generate(board)
    acct = account(board, result.trace)
    n = len(result.moves)
    summary = {
        "fen": board.fen(), "cycles": result.cycles, "moves": n,
        "cycles_per_move": round(result.cycles / n, 3) if n else None,
        "table_steps": acct.table_steps, "walk_entries": acct.walk_entries,
        "pieces": len(acct.pieces), "stalls": acct.stalls,
    }
    rows = [{"piece": p.name, "square": p.square, "entries": p.entries, "moves": p.moves,
             "cycles": p.cycles} for p in acct.pieces]
    other = acct.startup + acct.idle + acct.after
    if args.json:
        out = dict(summary)
        out["moves"] = [{"uci": board.uci(m), "cycle": c} for m, c in move_cycles(result.trace)]
        out["account"] = {"pieces": rows, "castles": acct.castles, "other_cycles": other}
        if vcd:
            out["vcd"], out["gtkw"] = vcd, gtkw
        print_json(out)
        return 0

    print(f"fen     {summary['fen']}")
    for i, (m, cycle) in enumerate(move_cycles(result.trace)):
        print(f"{i + 1:4d}  cycle {cycle:4d}  {describe(board, m)}")
    print(f"moves   {n}")
    per_move = f" ({result.cycles / n:.2f} per move)" if n else ""
    print(f"cycles  {result.cycles}{per_move}")
    print(f"table   {acct.walk_entries} walk entries (ROM A) + {len(acct.pieces)} piece starts "
          f"(ROM B, prefetched) = {acct.table_steps} steps")
    print()
    print("measured on the gateware, per piece: table entries its walk consumed, moves it made, "
          "clocks in the walker (entries + stalls on a full FIFO)")
    print(f"{'piece':<6} {'entries':>7} {'moves':>5} {'cycles':>6}")
    for row in rows:
        print(f"{row['piece']:<6} {row['entries']:>7} {row['moves']:>5} {row['cycles']:>6}")
    print(f"{'other':<6} {'':>7} {acct.castles:>5} {other:>6}"
          f"   (start-up {acct.startup}, logic-stage clocks with no piece {acct.idle}, "
          f"after the last step {acct.after}: castling, merger backlog)")
    if vcd:
        print(f"\nwaveform: {vcd} (open with: gtkwave {gtkw})")
    return 0


def move_cycles(trace):
    """(move, busy cycle at which it left the generator) in order."""
    return [(c.move, i + 1) for i, c in enumerate(trace) if c.move is not None]
