"""posdata search: the TSCP-style search on a position, iteration by iteration, or the chip's
search (docs/chip_search.md): the host's full-width plies over a leaf searcher below --chip-depth,
the reference (``sw``), the compiled search thread (``hw``) or the thread held to the reference
(``both``)."""

import time

from posdata.engine.rules.san import numbered, san_line
from posdata.engine.search.host_search import DEFAULT_CHIP_DEPTH
from posdata.engine.search.leaf_search import MAX_JOB_DEPTH
from posdata.engine.search.searcher import (
    MAX_DEPTH,
    Limits,
    MoveGenUnavailable,
    Searcher,
    is_mate_score,
    mate_in,
    pv_uci,
    uci_score,
)

from .common import (
    CliError,
    add_json_arg,
    add_mhz_arg,
    add_position_args,
    add_variant_arg,
    int_in_range,
    load_board,
    print_json,
    require_runs,
    require_san,
)
from .target_args import add_target_args, target_from_args

MAX_MOVETIME_MS = 24 * 3600 * 1000
#: the chip's search: the host's search over a leaf searcher; ``gen``: the TSCP search over the
#: gateware generator (what ``--movegen hw`` was)
BACKENDS = ("sw", "gen", "hw", "both")
CHIP_BACKENDS = ("sw", "hw", "both")
MAX_THREADS = 8  #: --threads: search threads of a chip (leaf searchers at once)


def register(sub) -> None:
    p = sub.add_parser(
        "search", help="search a position to a depth or for a time and print the best move",
        description="Without --backend (or with gen): iterative-deepening alpha-beta search "
                    "(TSCP style) over the software generator (gen: the gateware on --target); "
                    "one line per completed depth, then the best move. With --backend sw, hw "
                    "or both: the chip's search (docs/chip_search.md) to --depth, the last "
                    "--chip-depth plies and the quiescence search below the host on the "
                    "reference (sw), the compiled search thread (hw), or both held to each "
                    "other (both, printing the first differing node on a difference).")
    add_position_args(p)
    add_variant_arg(p)
    limit = p.add_mutually_exclusive_group(required=True)
    limit.add_argument("--depth", type=int_in_range(1, MAX_DEPTH, "--depth"),
                       help="plies to search (iterative deepening up to it)")
    limit.add_argument("--movetime", type=int_in_range(1, MAX_MOVETIME_MS, "--movetime"),
                       metavar="MS", help="milliseconds to search (not with sw, hw, both)")
    p.add_argument("--backend", choices=BACKENDS, default=None,
                   help="sw: the host's search over the reference leaf search; hw: over the "
                        "compiled search thread; both: the thread against the reference; gen: "
                        "the TSCP search over the gateware generator (default: the TSCP search "
                        "over the software generator)")
    p.add_argument("--chip-depth", type=int_in_range(0, MAX_JOB_DEPTH, "--chip-depth"),
                   default=None, metavar="D",
                   help=f"sw/hw/both: plies below the host's search, on the leaf searcher "
                        f"(default {DEFAULT_CHIP_DEPTH})")
    p.add_argument("--threads", type=int_in_range(1, MAX_THREADS, "--threads"), default=None,
                   metavar="N",
                   help="sw/hw: N leaf searchers, as a chip's N search threads: the first "
                        "child of a node above the jobs alone, its siblings a batch of N at "
                        "once (the same score, best move and PV; more nodes); with --target "
                        "board N of the search board's threads (default 1)")
    # the old spelling, kept as an alias: scripts and the UCI option still say sw/hw
    p.add_argument("--movegen", choices=("sw", "hw"), default=None,
                   help="deprecated: --movegen hw is --backend gen; sw the default")
    add_mhz_arg(p, "hw/both: clock for the hardware time, MHz (default: Fmax of the newest "
                   "search board build under build/ with as many threads)")
    p.add_argument("--san", action="store_true",
                   help="print the PV in standard algebraic notation with move numbers "
                        "(orthodox chess and Chess960; --json adds pv_san); bestmove stays UCI")
    add_target_args(p)
    add_json_arg(p)
    p.set_defaults(run=run)


def _backend(args) -> str | None:
    alias = {"sw": None, "hw": "gen"}.get(args.movegen)
    if args.movegen is not None and args.backend is not None and alias != args.backend:
        raise CliError(f"--movegen {args.movegen} (an old spelling) contradicts --backend "
                       f"{args.backend}")
    return args.backend if args.backend is not None else alias


def pv_text(board, pv: list[int], san: bool) -> str:
    """The PV as printed: UCI moves, or with --san numbered SAN."""
    return numbered(board, pv) if san else pv_uci(pv, board)


def run(args) -> int:
    require_san(args)
    backend = _backend(args)
    if backend in CHIP_BACKENDS:
        return run_chip(args, backend)
    if args.chip_depth is not None:
        raise CliError("--chip-depth goes with --backend sw, hw or both (the chip's search)")
    if args.threads is not None:
        raise CliError("--threads goes with --backend sw or hw (the chip's search: its leaf "
                       "searchers)")
    if args.mhz is not None:
        raise CliError("--mhz goes with --backend hw or both (the search thread's time)")
    movegen_name = "hw" if backend == "gen" else "sw"
    if backend == "gen":
        require_runs(args, "search-gen", "the search on the gateware (--backend gen)")
    board = load_board(args)
    from ..drivers.movegens import make_movegen
    try:
        runs = None if backend == "gen" else "--backend gen"
        movegen = make_movegen(movegen_name, target_from_args(args, runs=runs))
    except MoveGenUnavailable as e:
        raise CliError(str(e)) from None
    fen = board.fen()
    limits = Limits(depth=args.depth, time_ms=args.movetime)
    searcher = Searcher(movegen)

    if args.json:
        result = searcher.think(board, limits)
        print_json({
            "fen": fen, "variant": board.variant.name, "backend": backend or "tscp",
            "movegen": movegen_name,
            "target": (args.target or args.target_default) if backend == "gen" else None,
            "bestmove": board.uci(result.best_move) if result.best_move is not None else None,
            "score": _score_json(result.score), "depth": result.depth,
            "pv": [board.uci(m) for m in result.pv],
            **({"pv_san": san_line(board, result.pv)} if args.san else {}),
            "nodes": result.nodes,
            "seconds": round(result.seconds, 6), "stopped": result.stopped,
            "iterations": [{"depth": it.depth, "seldepth": it.seldepth,
                            "score": _score_json(it.score), "nodes": it.nodes,
                            "seconds": round(it.seconds, 6),
                            "pv": [board.uci(m) for m in it.pv]} for it in result.iterations],
        })
        return 0

    if board.variant.name != "chess":
        print(f"variant  {board.variant.name}")
    print(f"fen      {fen}")
    ran_on = f" on {args.target or args.target_default}" if backend == "gen" else ""
    print("movegen  " + ("the move generator (gateware)" if backend == "gen"
                         else "the reference walk (software)") + ran_on)

    def show(it):
        if it.depth == 1:
            print(f"{'depth':>5} {'seldepth':>8} {'score':>10} {'nodes':>10} {'seconds':>8} "
                  f"{'nodes/s':>8}  pv")
        nps = it.nodes / it.seconds if it.seconds > 0 else 0
        print(f"{it.depth:>5} {it.seldepth:>8} {uci_score(it.score):>10} {it.nodes:>10} "
              f"{it.seconds:>8.2f} {nps:>8.0f}  {pv_text(board, it.pv, args.san)}", flush=True)

    result = searcher.think(board, limits, show)
    if result.best_move is None:
        print("no legal move: " + ("checkmate" if board.in_check() else "stalemate"))
        print("bestmove (none)")
        return 0
    if result.stopped:
        print(f"(time up after {result.nodes} nodes, {result.seconds:.2f} s)")
    print(f"bestmove {board.uci(result.best_move)}")
    return 0


def run_chip(args, backend: str) -> int:
    """The chip's search: one search of --depth (the chip's tree is fixed by depth, window and
    chip depth, so a fixed depth is what the sides are compared at)."""
    if args.movetime is not None:
        raise CliError(f"--backend {backend} searches to a --depth, not for a --movetime")
    if args.mhz is not None and backend == "sw":
        raise CliError("--mhz goes with --backend hw or both (the search thread's time)")
    on_board = args.target == "board"
    given = [name for name, value in (("--target", args.target), ("--port", args.port),
                                      ("--baud", args.baud)) if value is not None]
    if backend == "sw" and given:
        raise CliError(f"{given[0]} goes with --backend gen, hw or both (sw searches on the "
                       f"reference)")
    if args.target not in (None, "board", "cxxrtl", "verilator"):
        raise CliError(f"the search thread runs on its compiled model (--target cxxrtl or "
                       f"verilator) or on a search board (--target board), not --target "
                       f"{args.target}")
    if args.port is not None and not on_board:
        raise CliError("--port goes with --target board")
    if on_board and args.port is None:
        raise CliError("--target board needs --port (the search board's serial port)")
    if args.baud is not None and not on_board:
        raise CliError("--baud goes with --target board (the search board's serial port)")
    threads = args.threads or 1
    if threads > 1 and backend == "both":
        raise CliError("--threads goes with --backend sw or hw (both follows the reference "
                       "job by job)")
    require_runs(args, "search", f"the chip's search (--backend {backend})")
    if on_board:
        require_runs(args, "search-board")
    board = load_board(args)
    chip_depth = DEFAULT_CHIP_DEPTH if args.chip_depth is None else args.chip_depth
    fen = board.fen()
    from posdata.engine.search.host_search import HostSearch, ReferenceLeaf

    model, models = None, []
    if on_board:
        model = search_board(args, threads)
        models = [model]
    elif backend != "sw":
        from ..drivers.search_cxxrtl import SearchModel
        sim = args.target  # None: the default simulator
        model = SearchModel(verbose=True, simulator=sim)  # a first compile says so on stderr
        models = [model] + [SearchModel(verbose=False, simulator=sim)
                            for _ in range(threads - 1)]
    parallel = rounds = None
    t = time.perf_counter()
    difference = None
    if backend == "both":
        from ..runs.search_check import check_search
        check = check_search(model, board, args.depth, chip_depth)
        score, best, pv, nodes = check.score, check.bestmove, check.pv, check.nodes
        hw_nodes, hw_cycles, difference = check.hw_nodes, check.hw_cycles, check.difference
    elif threads > 1:
        from posdata.engine.search.host_parallel import ParallelHostSearch
        # a search board runs a batch over its threads itself
        leaves = model if on_board else models or [ReferenceLeaf() for _ in range(threads)]
        search = ParallelHostSearch(board, leaves, chip_depth, threads)
        try:
            r = search.search(args.depth)
        finally:
            search.close()
        score, best, pv, nodes = r.score, r.best_move, r.pv, r.nodes
        hw_nodes, hw_cycles = (r.leaf_nodes, r.leaf_clocks) if models else (None, None)
        parallel, rounds = search.parallel_clocks, search.rounds
    else:
        leaf = model if model is not None else ReferenceLeaf()
        r = HostSearch(board, leaf, chip_depth).search(args.depth)
        score, best, pv, nodes = r.score, r.best_move, r.pv, r.nodes
        hw_nodes, hw_cycles = (r.leaf_nodes, r.leaf_clocks) if model is not None else (None, None)
    seconds = time.perf_counter() - t
    load_cycles = jobs = None
    if models:
        # the jobs' loads and starts, counted by the models
        load_cycles = sum(getattr(m, "load_clocks", 0) for m in models)
        jobs = sum(getattr(m, "jobs", 0) for m in models)
        for m in models:
            m.close()
    clock = ran = None
    if hw_cycles is not None:
        from .clock import Gateware, clock_for
        # at the clock of a search board's build with as many threads, on the board or not
        ran = Gateware("search", threads=threads)
        clock = clock_for(ran, args.mhz)
    mhz = clock.mhz if clock else None
    cpn = hw_cycles / hw_nodes if hw_nodes else None
    # the jobs' time on the thread: each one's load and start, then its search
    hw_seconds = (hw_cycles + load_cycles) / (mhz * 1e6) if mhz and hw_cycles is not None \
        else None
    if threads > 1 and hw_seconds is not None:
        # the threads load and search at once: each round costs its longest job and a load
        hw_seconds = (parallel + rounds * load_cycles / max(jobs, 1)) / (mhz * 1e6)
    match = None if backend != "both" else difference is None
    # moves in the position they are played from: the PV's on a board that follows it
    line = []
    for m in pv:
        line.append(board.uci(m))
        board.makemove(m)
    for _ in pv:
        board.takeback()

    if args.json:
        print_json({
            "fen": fen, "backend": backend, "depth": args.depth, "chip_depth": chip_depth,
            "threads": threads,
            "score": _score_json(score), "bestmove": line[0] if best is not None else None,
            "pv": line, **({"pv_san": san_line(board, pv)} if args.san else {}),
            "nodes": nodes, "hw_nodes": hw_nodes, "hw_cycles": hw_cycles,
            "hw_load_cycles": load_cycles,
            "hw_parallel_cycles": parallel if threads > 1 else hw_cycles,
            "clocks_per_node": round(cpn, 3) if cpn is not None else None, "mhz": mhz,
            "clock": clock.as_dict() if clock else None,
            **({"no_clock": ran.no_clock()} if ran is not None and clock is None else {}),
            "hw_seconds": round(hw_seconds, 9) if hw_seconds is not None else None,
            "seconds": round(seconds, 6), "match": match, "difference": difference,
        })
        return 0 if match is not False else 1

    print(f"fen      {fen}")
    print(f"backend  {backend}, depth {args.depth}, chip depth {chip_depth}"
          + (f", {threads} threads" if threads > 1 else ""))
    print(f"score    {uci_score(score)}")
    print(f"nodes    {nodes} ({seconds:.2f} s)")
    print(f"pv       {pv_text(board, pv, args.san)}")
    if hw_nodes is not None:
        print(f"chip     {hw_nodes} nodes, {hw_cycles} clocks, {cpn:.2f} clocks per node; "
              f"{load_cycles} clocks loading and starting the jobs" if cpn is not None
              else "chip     no jobs")
    if threads > 1 and hw_nodes is not None and parallel is not None:
        print(f"threads  {threads}: {parallel} clocks with each batch's jobs at once "
              f"({hw_cycles / parallel:.2f}x fewer than one after another)")
    if hw_seconds is not None:
        print(f"hw time  {hw_seconds:.6f} s at {clock.describe()}")
    elif ran is not None:
        print(f"hw time  {ran.no_clock()}")
    if backend == "both":
        print("match    yes" if difference is None else f"MISMATCH: first differing node: "
              f"{difference}")
    if best is None:  # the root's window is full: no best move is no legal move
        print("no legal move: " + ("checkmate" if board.in_check() else "stalemate"))
    print(f"bestmove {line[0] if best is not None else '(none)'}")
    return 0 if match is not False else 1


def search_board(args, threads: int = 1):
    """A BoardClient on --port that PING says is a search board (a LeafSearcher) with at least
    ``threads`` search threads."""
    from posdata.hdl.link.protocol import DEFAULT_BAUD

    from ..drivers.fpga_board import BoardError, open_search_board
    try:
        client = open_search_board(args.port, args.baud or DEFAULT_BAUD)
    except BoardError as e:
        raise CliError(str(e)) from None
    if client.threads < threads:
        client.close()
        raise CliError(f"--threads {threads}: the search board on {args.port} has "
                       f"{client.threads} search thread{'s' if client.threads > 1 else ''} "
                       f"(posdata synth --search --threads N builds more)")
    return client


def _score_json(score: int) -> dict:
    if is_mate_score(score):
        return {"mate": mate_in(score)}
    return {"cp": score}
