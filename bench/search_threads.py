"""A search board with N threads, projected whole: the host's search of the bench positions
(bench/search.py's eight) over N compiled search threads, its batches (engine/search/
host_parallel.py) timed as a board would run them, beside GNU Chess on one core in the same run.

    .venv/bin/python bench/search_threads.py [--threads 1 2 4 8] [--depth 4] [--chip-depth 2]
                                             [--mhz F] [--baud B] [--latency-ms L] [--json FILE]

Each search is held to the serial search over the reference (score, best move, PV). The time
of a round (a lone job, or a batch of sibling jobs a thread each) is the sum of:

* the link, as ``sim.drivers.fpga_board.BoardClient`` drives a board (protocol 3 on): one write
  of the round's LOAD or UPDATE and SEARCH frames (built by the client's own code against the
  board's position) and their replies, then RESULT polls of the running threads in one write
  each, back to back, until the slowest job is done; every exchange is the USB latency (an
  FTDI chip's latency timer, 1 ms by default) plus its bytes both ways at the baud rate, 10
  bits a byte;
* the chip: the round's slowest job, its load and start included, in the compiled thread's
  clocks at the clock of a build with N threads (``--mhz`` else the newest report under
  build/ or build/*/ that holds N threads; none: no projection for that N);
* the host's own time: the same search replayed with every job's result recorded, so that
  a job costs a lookup; measured on this machine.

The chip runs while the polls go on, so a round takes its start and its polls; "link s" is what
that adds to the chip's time, and the host, which waits for a round before it goes on, adds its
own. Projected nodes/s: the search's nodes (the host's and the jobs') over that time. Beside it,
the link of the protocol-v2 client, which started each job with an exchange of its own and
polled each thread in turn, a 20 ms pause between rounds of polls.
"""

import argparse
import glob
import math
import sys
import time

from posdata.engine.rules.board import Board
from posdata.engine.search.host_parallel import ParallelHostSearch, PooledLeaves
from posdata.engine.search.host_search import HostSearch, ReferenceLeaf
from posdata.hdl.link.protocol import (
    DEFAULT_BAUD,
    RESULT_BYTES,
    UART_FRAME_BITS,
    Cmd,
    Err,
    command_frame,
    reply_frame,
)
from posdata.sim.cli.clock import Gateware, clock_for
from posdata.sim.drivers.fpga_board import SerialTransport, job_frames
from posdata.sim.drivers.interface import ShadowBoard
from posdata.sim.drivers.search_cxxrtl import SearchModel
from search_chip import GNUCHESS_DEPTH, gnuchess_path, gnuchess_search, gnuchess_version

from results import add_json_option, write_json
from search import POSITIONS

# the frames' sizes as the protocol builds them
EMPTY_REPLY = len(reply_frame(Err.OK, Cmd.SEARCH))  #: LOAD's, UPDATE's, SEARCH's
RESULT_FRAME = len(command_frame(Cmd.RESULT))
RESULT_REPLY = len(reply_frame(Err.OK, Cmd.RESULT, bytes(RESULT_BYTES)))
#: the protocol-v2 client's pause between rounds of polls: a real board's poll interval
V2_POLL_PAUSE = SerialTransport.poll_interval


class Round:
    """A lone job or a batch: per job its start's bytes to the board, and its clocks."""

    def __init__(self):
        self.start_bytes: list[int] = []
        self.clocks: list[int] = []


class Recorder:
    """A batch searcher over compiled threads (``PooledLeaves``) that notes each round: the
    frames the client would write for it, against the board's position as the client tracks
    it, and each job's clocks with its load; and the results, for the replay."""

    def __init__(self, models):
        self.models, self.pool = models, PooledLeaves(models)
        self.threads = len(models)
        self.shadow = ShadowBoard()
        self.shadow.forget()
        self.rounds: list[Round] = []
        self.results: list[list] = []

    def search(self, board, *job):
        return self.search_many([(board, *job)])[0]

    def search_many(self, jobs):
        loads = [m.load_clocks for m in self.models]
        results = self.pool.search_many(jobs)
        r = Round()
        for thread, (job, result) in enumerate(zip(jobs, results)):
            r.start_bytes.append(len(job_frames(self.shadow, job, thread)[1]))
            r.clocks.append(result.clocks + self.models[thread].load_clocks - loads[thread])
        self.rounds.append(r)
        self.results.append(results)
        return results

    def close(self):
        self.pool.close()


class Replay:
    """The recorded results, round by round: the host's search with jobs that cost nothing."""

    def __init__(self, recorder: Recorder):
        self.threads = recorder.threads
        self._results = iter(recorder.results)

    def search(self, board, *job):
        return next(self._results)[0]

    def search_many(self, jobs):
        return next(self._results)


def exchange(out_bytes: int, in_bytes: int, baud: int, latency: float) -> float:
    return latency + (out_bytes + in_bytes) * UART_FRAME_BITS / baud


def link_and_chip(rounds, mhz: float, baud: int, latency: float) -> tuple[float, float, float]:
    """Seconds of the link (the client's, protocol 3 on), of the chip, and of the v2 client's
    link."""
    link = chip = v2 = 0.0
    for r in rounds:
        n = len(r.clocks)
        busy = max(r.clocks) / (mhz * 1e6)
        start = exchange(sum(r.start_bytes), 2 * EMPTY_REPLY * n, baud, latency)
        poll = exchange(RESULT_FRAME * n, RESULT_REPLY * n, baud, latency)
        # the polls follow the start back to back; the last one finds the slowest job done
        polls = max(1, math.ceil(busy / poll))
        link += start + polls * poll - busy
        chip += busy
        # v2: a start exchange per job, a poll exchange per thread, a pause between rounds
        starts = sum(exchange(b, 2 * EMPTY_REPLY, baud, latency) for b in r.start_bytes)
        sweep = n * exchange(RESULT_FRAME, RESULT_REPLY, baud, latency)
        # the first k with k sweeps and the k - 1 pauses between them reaching ``busy``
        sweeps = max(1, math.ceil((busy + V2_POLL_PAUSE) / (sweep + V2_POLL_PAUSE)))
        v2 += starts + sweeps * sweep + (sweeps - 1) * V2_POLL_PAUSE - busy
    return link, chip, v2


def clock_of(threads: int, mhz: float | None):
    """The clock of a build with ``threads`` search threads (or --mhz), or None."""
    ran = Gateware("search", threads=threads)
    if mhz is not None:
        return clock_for(ran, mhz)
    for build_dir in ["build", *sorted(d.rstrip("/") for d in glob.glob("build/*/"))]:
        clock = clock_for(ran, None, build_dir)
        if clock is not None:
            return clock
    return None


def run(n: int, args, serial: dict) -> dict:
    """The bench tree over ``n`` compiled threads: the rounds, the replayed host time."""
    models = [SearchModel(verbose=False) for _ in range(n)]
    nodes, ok, rounds, host = 0, True, [], 0.0
    for name, fen in POSITIONS:
        recorder = Recorder(models)
        search = ParallelHostSearch(Board(fen), recorder, args.chip_depth)
        try:
            got = search.search(args.depth)
        finally:
            recorder.close()
        want = serial[name]
        ok &= (got.score, got.best_move, got.pv) == (want.score, want.best_move, want.pv)
        nodes += got.nodes
        rounds += recorder.rounds
        replay = ParallelHostSearch(Board(fen), Replay(recorder), args.chip_depth)
        t = time.perf_counter()
        again = replay.search(args.depth)
        host += time.perf_counter() - t
        ok &= (again.score, again.pv, again.nodes) == (got.score, got.pv, got.nodes)
    for m in models:
        m.close()
    return {"threads": n, "nodes": nodes, "rounds": rounds, "host_s": host, "match": ok}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2, 4, 8],
                   help="the thread counts to run (default: 1 2 4 8)")
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--chip-depth", type=int, default=2)
    p.add_argument("--mhz", type=float, default=None,
                   help="the chip's clock for every N (default: a build's with N threads)")
    p.add_argument("--baud", type=int, default=DEFAULT_BAUD)
    p.add_argument("--latency-ms", type=float, default=1.0,
                   help="the USB round trip an exchange waits (the FTDI latency timer)")
    p.add_argument("--gnuchess-depth", type=int, default=GNUCHESS_DEPTH)
    add_json_option(p)
    args = p.parse_args(argv)
    if any(n < 1 for n in args.threads) or args.baud < 1 or args.latency_ms < 0:
        p.error("threads and baud must be positive, the latency not negative")
    latency = args.latency_ms / 1000
    serial = {name: HostSearch(Board(fen), ReferenceLeaf(), args.chip_depth).search(args.depth)
              for name, fen in POSITIONS}
    gnuchess = gnuchess_path()
    theirs = None
    if gnuchess:
        runs = [gnuchess_search(gnuchess, fen, args.gnuchess_depth) for _, fen in POSITIONS]
        theirs = (sum(n for n, _ in runs), sum(s for _, s in runs))
    print(f"host depth {args.depth}, chip depth {args.chip_depth}, the eight bench positions; "
          f"link {args.baud} baud, {args.latency_ms:g} ms an exchange")
    print(f"{'threads':>7} {'nodes':>9} {'rounds':>7} {'match':>5} {'host s':>7} {'link s':>7} "
          f"{'chip s':>7} {'total s':>7} {'nodes/s':>9} {'vs GNU':>6} {'v2 link s':>9}  clock")
    ok, rows = True, []
    for n in args.threads:
        r = run(n, args, serial)
        ok &= r["match"]
        clock = clock_of(n, args.mhz)
        row = {"threads": n, "nodes": r["nodes"], "rounds": len(r["rounds"]),
               "jobs": sum(len(x.clocks) for x in r["rounds"]), "match": r["match"],
               "host_s": round(r["host_s"], 4),
               "clocks": sum(max(x.clocks) for x in r["rounds"]),
               "clock": clock.as_dict() if clock else None}
        if clock:
            link, chip, v2 = link_and_chip(r["rounds"], clock.mhz, args.baud, latency)
            total = r["host_s"] + link + chip
            rate = r["nodes"] / total
            versus = f"{rate / (theirs[0] / theirs[1]):.2f}x" if theirs else "-"
            row.update(link_s=round(link, 4), chip_s=round(chip, 4), total_s=round(total, 4),
                       nodes_per_s=round(rate), v2_link_s=round(v2, 4))
            print(f"{n:>7} {r['nodes']:>9} {len(r['rounds']):>7} {str(r['match']):>5} "
                  f"{r['host_s']:>7.3f} {link:>7.3f} {chip:>7.3f} {total:>7.3f} "
                  f"{rate / 1e6:>7.3f} M {versus:>6} {v2:>9.3f}  {clock.describe()}", flush=True)
        else:
            print(f"{n:>7} {r['nodes']:>9} {len(r['rounds']):>7} {str(r['match']):>5} "
                  f"{r['host_s']:>7.3f} {'-':>7} {'-':>7} {'-':>7} {'-':>9} {'-':>6} {'-':>9}  "
                  f"{Gateware('search', threads=n).no_clock()}", flush=True)
        rows.append(row)
    if theirs:
        print(f"GNU Chess ({gnuchess_version(gnuchess)}, one thread, depth {args.gnuchess_depth}, "
              f"this machine): {theirs[0] / theirs[1] / 1e6:.2f} M nodes/s ({theirs[0]} nodes in "
              f"{theirs[1]:.2f} s)")
    else:
        print("GNU Chess: not installed (apt-get install gnuchess for the vs GNU column)")
    write_json(args.json, {
        "depth": args.depth, "chip_depth": args.chip_depth, "baud": args.baud,
        "latency_ms": args.latency_ms, "rows": rows,
        "gnuchess": ({"version": gnuchess_version(gnuchess), "depth": args.gnuchess_depth,
                      "nodes": theirs[0], "seconds": round(theirs[1], 3)} if theirs else None)})
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
