"""posdata export: the gateware as Verilog or RTLIL, for tools other than Amaranth."""

import sys

from .common import CliError, int_in_range
from .outputs import STDOUT, Outputs

#: UART clocks per bit: 4 (the least the UART samples a bit with: hdl.link.uart) .. 2**24
#: (300 baud at 5 GHz)
MIN_DIVISOR, MAX_DIVISOR = 4, 2**24


def register(sub) -> None:
    p = sub.add_parser(
        "export", help="write the move generator (or the board design) as Verilog or RTLIL",
        description="Write the gateware for other tools: one flat Verilog module (Yosys: proc, "
                    "flatten, opt_clean; no never-executing always blocks, lint-clean under "
                    "Verilator with the waivers docs/cli.md lists) or Amaranth's RTLIL. "
                    "generator: module posdata_movegen, the ports docs/cli.md lists; board: "
                    "module posdata_board, the perft chip behind its UART front end (clk, rst, "
                    "rx, tx, busy, self_test).")
    p.add_argument("--verilog", metavar="FILE", help="write Verilog to FILE (- for standard "
                   "output)")
    p.add_argument("--rtlil", metavar="FILE", help="write RTLIL to FILE (- for standard output)")
    p.add_argument("--design", choices=("generator", "board"), default="generator",
                   help="generator (default) or board")
    p.add_argument("--divisor", type=int_in_range(MIN_DIVISOR, MAX_DIVISOR, "--divisor"),
                   default=None, metavar="N",
                   help="board: UART clocks per bit (default 33: 3 Mbaud at 100 MHz)")
    p.set_defaults(run=run)


def run(args) -> int:
    if not args.verilog and not args.rtlil:
        raise CliError("export: give --verilog FILE and/or --rtlil FILE")
    if args.divisor is not None and args.design != "board":
        raise CliError("--divisor goes with --design board")
    from posdata.sim.models.toolchain import ToolchainError
    from posdata.sim.models.verilog_export import module_name, rtlil_text, verilog_text

    params = {"divisor": args.divisor} if args.divisor else None
    wanted = [(path, option, make) for path, option, make in
              ((args.verilog, "--verilog", verilog_text), (args.rtlil, "--rtlil", rtlil_text))
              if path is not None]
    with Outputs() as outputs:
        for path, option, _ in wanted:  # every output checked before any is made
            outputs.add(path, option, stdout=True)
        written = []
        for path, option, make in wanted:
            try:
                text = make(args.design, params)
            except (ToolchainError, OSError) as e:  # Yosys failed, no temporary directory
                raise CliError(str(e)) from None
            try:
                with open(outputs.temp(path), "w") as f:
                    f.write(text)
            except OSError as e:
                raise CliError(f"cannot write {path} ({option}): {e.strerror or e}") from None
            written.append((path, text))
        outputs.commit()
    for path, text in written:  # about standard output's text, beside it on stderr
        print(f"{'standard output' if path == STDOUT else path}: module "
              f"{module_name(args.design)}, {text.count(chr(10))} lines",
              file=sys.stderr if STDOUT in (args.verilog, args.rtlil) else sys.stdout)
    return 0
