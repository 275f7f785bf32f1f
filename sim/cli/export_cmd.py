"""posdata export: the gateware as Verilog or RTLIL, for tools other than Amaranth."""

from .common import CliError


def register(sub) -> None:
    p = sub.add_parser(
        "export", help="write the move generator (or the board design) as Verilog or RTLIL",
        description="Write the gateware for other tools: one flat Verilog module (Yosys: proc, "
                    "flatten, opt_clean; no never-executing always blocks, lint-clean under "
                    "Verilator with the waivers docs/cli.md lists) or Amaranth's RTLIL. "
                    "generator: module posdata_movegen, the ports docs/cli.md lists; board: "
                    "module posdata_board, the perft chip behind its UART front end (clk, rst, "
                    "rx, tx, busy, self_test).")
    p.add_argument("--verilog", metavar="FILE", help="write Verilog to FILE")
    p.add_argument("--rtlil", metavar="FILE", help="write RTLIL to FILE")
    p.add_argument("--design", choices=("generator", "board"), default="generator",
                   help="generator (default) or board")
    p.add_argument("--divisor", type=int, default=None,
                   help="board: UART clocks per bit (default 33: 3 Mbaud at 100 MHz)")
    p.set_defaults(run=run)


def run(args) -> int:
    if not args.verilog and not args.rtlil:
        raise CliError("export: give --verilog FILE and/or --rtlil FILE")
    if args.divisor is not None and (args.design != "board" or args.divisor < 2):
        raise CliError("--divisor goes with --design board and must be at least 2")
    from posdata.sim.models.toolchain import ToolchainError
    from posdata.sim.models.verilog_export import module_name, rtlil_text, verilog_text

    params = {"divisor": args.divisor} if args.divisor else None
    try:
        outputs = []
        if args.verilog:
            outputs.append((args.verilog, verilog_text(args.design, params)))
        if args.rtlil:
            outputs.append((args.rtlil, rtlil_text(args.design, params)))
        for path, text in outputs:
            with open(path, "w") as f:
                f.write(text)
    except (OSError, ToolchainError) as e:
        raise CliError(str(e)) from None
    for path, text in outputs:
        print(f"{path}: module {module_name(args.design)}, {text.count(chr(10))} lines")
    return 0
