"""The hardware-against-software table of `posdata compare` (and of `make demo`): one row per
position, printed as it fills."""

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import STANDARD_POSITIONS

from .common import CliError, Progress


def compare_table(depths: dict, sim, jobs: int, clock, quiet=False,
                  echo=True, backend: str = "hw", bulk: bool = False,
                  positions=STANDARD_POSITIONS, variant: str = "chess",
                  no_clock: str = "none: no clock known; run `posdata synth` or pass --mhz"
                  ) -> list[dict]:
    """Run the comparison for each named position of ``positions`` (default: the standard
    ones; those of ``variant``'s game) at its depth on ``sim`` (a sim.drivers.targets target or its
    name); print the table as it fills when ``echo``; hardware times at ``clock`` (a
    sim.cli.clock.Clock, or None: no times, ``no_clock`` said instead). Returns one dict per
    position."""
    from posdata.sim.drivers.fpga_board import BoardError
    from posdata.sim.drivers.targets import as_target, make_chip
    from posdata.sim.runs.chip_perft import run_chip_perft
    from posdata.sim.runs.gen_perft import run_perft

    target = as_target(sim)
    mhz = clock.mhz if clock else None
    factory = None
    if backend == "hw" and target.name == "board":  # the board's own PERFT counts
        try:
            chip = make_chip(target)
        except (OSError, BoardError) as e:
            raise CliError(str(e)) from None
        factory = lambda: chip  # noqa: E731

    unit = "clk/leaf" if backend == "hw" else "cyc/move"
    header = (f"{'position':<10} {'depth':>5} {'sw nodes':>10} {'hw nodes':>10} "
              f"{'published':>10} {'match':>5} {'hw clocks':>11} {unit:>8} "
              f"{'hw time':>10} {'host s':>7}")
    if echo:
        if variant != "chess":
            print(f"variant {variant}: its sample positions (sim.runs.variant_positions)")
        print(header)
    rows = []
    for pos in positions:
        if pos.name not in depths:
            continue
        depth = depths[pos.name]
        progress = Progress(quiet)
        try:
            if backend == "hw":
                report = run_chip_perft(Board(pos.fen, variant), depth, "both", target, bulk,
                                        jobs, progress=progress, factory=factory)
                clocks, per = report.clocks, report.clocks / max(1, report.nodes)
            else:
                report = run_perft(Board(pos.fen, variant), depth, "gen", target, jobs, progress,
                                   check=True, bulk=bulk)
                clocks, per = report.cycles, report.cycles / max(1, report.moves)
        except (RuntimeError, OSError, BoardError) as e:
            raise CliError(str(e)) from None
        finally:
            progress.done()
        published = pos.counts[depth - 1] if depth <= len(pos.counts) else None
        match = bool(report.match) and (published is None or report.nodes == published)
        hw_time = clocks / (mhz * 1e6) if mhz else None
        row = {"position": pos.name, "fen": pos.fen, "depth": depth, "sw_nodes": report.sw_nodes,
               "hw_nodes": report.nodes, "published": published, "match": match,
               "hw_cycles": clocks, ("cycles_per_node" if backend == "hw"
                                     else "cycles_per_move"): round(per, 3),
               "hw_seconds": hw_time, "host_seconds": round(report.seconds, 3),
               "compile_seconds": round(report.compile_seconds, 3),
               "mismatch": report.mismatch}
        rows.append(row)
        if echo:
            shown = f"{hw_time * 1e3:.3f} ms" if hw_time is not None else "n/a"
            print(f"{pos.name:<10} {depth:>5} {report.sw_nodes:>10} {report.nodes:>10} "
                  f"{published if published is not None else '-':>10} "
                  f"{'yes' if match else 'NO':>5} {clocks:>11} {per:>8.3f} {shown:>10} "
                  f"{report.seconds:>7.2f}", flush=True)
            if report.mismatch:
                print(f"  MISMATCH {report.mismatch}")
    if echo:
        what = "the chip's clocks for the whole count" if backend == "hw" else \
            "the generator's cycles alone"
        print(f"hw time: {what} at {clock.describe()}" if clock else f"hw time: {no_clock}")
        compiled = sum(r["compile_seconds"] for r in rows)
        if compiled:  # a board has no model to build
            print(f"host s: the counts alone; building or loading the model took "
                  f"{compiled:.2f} s before them")
    return rows
