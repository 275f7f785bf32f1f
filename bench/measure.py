"""make measurements: run the benches, keep what they measured, write docs/measurements.md.

Each job is one command as a person would run it (a bench with ``--json FILE``, or a
``posdata ... --json`` whose output is JSON). Its results go into docs/measurements.json with
the command, the commit (``git rev-parse --short HEAD``, ``-dirty`` when tracked files differ
from it) and the date, then bench/report.py rewrites docs/measurements.md and the README's
block of headline figures from that file. A job that fails keeps its previous figures and
makes the run exit 1; the others are kept.

The quick set (default) takes a quarter of an hour on 2 cores; ``--long`` runs the long set
instead (ULX3S-85F builds, the perft(6) projection, multi-seed synthesis: hours).
``--only ID ...`` runs some jobs of either set. ``--record ID FILE --at COMMIT`` keeps the
results a job's own command wrote to FILE when it ran apart (an hour-long match run beside other
work), at the commit it ran at. Usage::

    .venv/bin/python bench/measure.py [--long] [--only ID ...] [--list]
    .venv/bin/python bench/measure.py --record ID FILE --at COMMIT [--seconds S]
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

import report

BENCH = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)
POSDATA = os.path.join(BIN, "posdata")


def bench(script: str, *args: str) -> list[str]:
    return [sys.executable, os.path.join(BENCH, script), *args, "--json", "FILE"]


def posdata(*args: str) -> list[str]:
    return [POSDATA, *args, "--json"]


#: id -> argv, in the order they run (the 25F build before the chip bench, which reads its
#: Fmax from build/synth). "FILE" stands for the JSON file a bench writes.
QUICK = {
    "synth": posdata("synth", "--board", "ulx3s-25f"),
    "bench": bench("perft_sw.py"),
    "bench-hw": bench("hw_cycles.py"),
    "bench-sim": bench("sim_speed.py"),
    "bench-sim-chip": bench("chip_sim.py"),
    "search": bench("search.py"),
    "search-hw": bench("search.py", "--movegen", "hw"),
    # the search board's Fmax is the clock search-chip projects at
    "synth-search": posdata("synth", "--search", "--board", "ulx3s-25f"),
    "search-chip": bench("search_chip.py"),
    "search-threads": bench("search_threads.py"),
    # after search-chip: it reads that run's clocks by state
    "search-pipeline": bench("search_pipeline.py"),
    "features": bench("search_features.py"),
    "bench-chip": bench("chip.py", "--engines", "0", "--positions", "initial"),
    "variants": bench("variants.py"),
    "variants-hw": bench("variants.py", "--hw"),
    "variants-chip": bench("variants.py", "--chip"),
}
LONG = {
    "bench-chip-all": bench("chip.py", "--engines", "0"),
    "synth-85f": posdata("synth", "--board", "ulx3s-85f"),
    "chip-85f": bench("chip.py", "--many-only"),
    "synth-85f-seeds": posdata("synth", "--board", "ulx3s-85f", "--seeds", "3"),
    "synth-85f-six": posdata("synth", "--board", "ulx3s-85f", "--engines", "6",
                             "--build-dir", "build/six"),
    "synth-85f-search": posdata("synth", "--search", "--threads", "4", "--board", "ulx3s-85f",
                                "--build-dir", "build/search4"),
    "synth-seeds": posdata("synth", "--board", "ulx3s-25f", "--seeds", "3"),
    # the perft chip with modes, one board per variant an ECP5 board takes (one RTL, each
    # variant's memory contents): minutes each
    **{f"synth-{v}": posdata("synth", "--board", "ulx3s-25f", "--variant", v,
                             "--build-dir", f"build/{v}") for v in report.MODES_BOARDS},
    "icebreaker-seeds": posdata("synth", "--board", "icebreaker", "--seeds", "5"),
    # the search thread alone, out of context: minutes
    "search-area": bench("search_area.py"),
    # the pipelined thread's stages alone beside the parts they replace: minutes a part
    "search-stages": bench("search_area.py", "--part",
                           "capture_pipe,eval_pipe,capture_finder,child_eval"),
    # two cold compiles of each design and simulator: minutes
    "bench-sim-models": bench("model_sim.py"),
    "variants-synth": bench("variants.py", "--hw", "--synth"),
    # cold compiles of the chip and the generator, a variant after another: minutes
    "variants-first-runs": bench("variants.py", "--first-runs"),
    "scale": bench("scale.py"),
    # 200 games (two at once) and 300 positions at depth 3: about an hour on two cores
    "play": bench("search_play.py"),
}


def shown(argv: list[str]) -> str:
    """The command as a person types it from the repository root."""
    def short(word):
        if word == sys.executable:
            return ".venv/bin/python"
        if word.startswith(BIN + os.sep):
            return word[len(BIN) + 1:]
        if word.startswith(BENCH + os.sep):
            return "bench/" + word[len(BENCH) + 1:]
        return word
    return " ".join(short(w) for w in argv)


def commit() -> str:
    def git(*args):
        return subprocess.run(["git", *args], cwd=report.REPO, capture_output=True, text=True,
                              check=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD")
    return head + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def run_job(job_id: str, argv: list[str]) -> dict:
    """Run one job; its results (raises RuntimeError when it fails)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "results.json")
        cmd = [out if w == "FILE" else w for w in argv]
        writes_file = "FILE" in argv
        done = subprocess.run(cmd, cwd=report.REPO, text=True,
                              stdout=None if writes_file else subprocess.PIPE)
        if done.returncode != 0:
            raise RuntimeError(f"{job_id}: `{shown(argv)}` exited with {done.returncode}")
        if writes_file:
            with open(out) as f:
                return json.load(f)
        return json.loads(done.stdout)


def load_data() -> dict:
    """docs/measurements.json (empty at first), knowing which jobs are long runs."""
    data = report.load() if os.path.exists(report.DATA) else {"runs": {}, "long": []}
    data["long"] = sorted(set(data.get("long", [])) | set(LONG))
    return data


def record(job_id: str, path: str, at: str | None, seconds: float | None) -> int:
    """Keep the results of ``job_id``'s command run apart, as if this script had run it."""
    every = {**QUICK, **LONG}
    problem = (f"no job {job_id} (--list shows them)" if job_id not in every else
               "--record needs --at COMMIT, the commit the job ran at" if not at else None)
    try:
        with open(path) as f:
            results = json.load(f)
    except (OSError, ValueError) as e:
        problem = problem or f"cannot read {path}: {e}"
    if problem:
        print(f"bench/measure.py: error: {problem}", file=sys.stderr)
        return 2
    data = load_data()
    data["runs"][job_id] = {
        "command": shown(every[job_id]), "commit": at,
        "date": datetime.date.fromtimestamp(os.path.getmtime(path)).isoformat(),
        "seconds": seconds, "results": results}
    report.write_whole(report.DATA, json.dumps(data, indent=1, sort_keys=True) + "\n")
    report.render()
    print(f"== {job_id}: kept {path} (ran at {at})")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--long", action="store_true", help="the long set instead of the quick one")
    p.add_argument("--only", nargs="+", metavar="ID", help="just these jobs (of either set)")
    p.add_argument("--list", action="store_true", help="list the jobs and their commands")
    p.add_argument("--record", nargs=2, metavar=("ID", "FILE"),
                   help="keep what job ID's command wrote to FILE when run apart (with --at)")
    p.add_argument("--at", metavar="COMMIT", help="with --record: the commit the job ran at")
    p.add_argument("--seconds", type=float, help="with --record: how long the job ran")
    args = p.parse_args(argv)
    if args.record:
        return record(*args.record, args.at, args.seconds)
    if args.list:
        for name, jobs in (("quick", QUICK), ("long", LONG)):
            for job_id, cmd in jobs.items():
                print(f"{name:<5} {job_id:<17} {shown(cmd)}")
        return 0
    every = {**QUICK, **LONG}
    if args.only:
        unknown = [j for j in args.only if j not in every]
        if unknown:
            print(f"bench/measure.py: error: no job {', '.join(unknown)} (--list shows them)",
                  file=sys.stderr)
            return 2
        jobs = {j: every[j] for j in every if j in args.only}
    else:
        jobs = LONG if args.long else QUICK

    data = load_data()
    at = commit()  # before any file of the run is written: they would make the tree dirty
    failed = []
    started = time.perf_counter()
    for job_id, cmd in jobs.items():
        print(f"== {job_id}: {shown(cmd)}", flush=True)
        t0 = time.perf_counter()
        try:
            results = run_job(job_id, cmd)
        except (RuntimeError, OSError, ValueError) as e:
            print(f"bench/measure.py: {e}", file=sys.stderr, flush=True)
            failed.append(job_id)
            continue
        data["runs"][job_id] = {
            "command": shown(cmd), "commit": at,
            "date": datetime.date.today().isoformat(),
            "seconds": round(time.perf_counter() - t0, 1), "results": results}
        report.write_whole(report.DATA, json.dumps(data, indent=1, sort_keys=True) + "\n")
        report.render()
    minutes = (time.perf_counter() - started) / 60
    print(f"== {len(jobs) - len(failed)} of {len(jobs)} jobs in {minutes:.1f} min at {at}"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
