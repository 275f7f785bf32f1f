"""docs/measurements.md and the README's headline figures, rendered from docs/measurements.json.

bench/measure.py runs the benches and stores what each measured in docs/measurements.json with
its command, commit and date; this module turns that into text, and nothing else: the same
JSON always gives the same text, so tests/test_readme.py can hold the committed files to it
(a figure typed into either file by hand fails the test).

Usage: python bench/report.py   (rewrites docs/measurements.md and the README's block from the
JSON, without measuring anything)
"""

import json
import os
import sys

import charts
from posdata.engine.match import elo

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(REPO, "docs", "measurements.json")
MARKDOWN = os.path.join(REPO, "docs", "measurements.md")
README = os.path.join(REPO, "README.md")
BEGIN = "<!-- measurements:begin (written by `make measurements` from docs/measurements.json) -->"
END = "<!-- measurements:end -->"


def load(path: str = DATA) -> dict:
    with open(path) as f:
        return json.load(f)


def thousands(n: float) -> str:
    return f"{n:,.0f}"


def kilo(n: float) -> str:
    return f"{n / 1e3:,.0f}k"


def mega(n: float, places: int = 1) -> str:
    return f"{n / 1e6:,.{places}f} M"


def percent_of(util: dict, name: str) -> str:
    entry = util.get(name) or {}
    if not entry.get("available"):
        return thousands(entry.get("used", 0))
    return f"{thousands(entry['used'])} ({100 * entry['used'] / entry['available']:.0f} %)"


# ---- headline figures: (what, figure, command to reproduce, run id) ------------------------

def headlines(runs: dict) -> list[tuple[str, str, str, str]]:
    rows = []

    def add(what, run_id, command, figure):
        run = runs.get(run_id)
        rows.append((what, figure(run["results"]) if run else "not measured yet", command,
                     run_id))

    add("software perft, plain (every leaf made and taken back)", "bench", "make bench",
        lambda r: f"{kilo(r['plain']['nps'])} nodes/s, {r['plain']['ratio']:.2f}x "
                  f"{r['peer']}")
    add("software perft, bulk (the last ply counted, not made)", "bench", "make bench",
        lambda r: f"{kilo(r['bulk']['nps'])} nodes/s, {r['bulk']['ratio']:.2f}x "
                  f"{r['peer'].split()[0]}")
    if runs.get("bench") and "whole_process" in runs["bench"]["results"]:
        add("software perft, whole process (start to exit, plain, -j 1)", "bench",
            "make bench", whole_figure)
    add("move generator, six standard positions", "bench-hw", "make bench-hw",
        lambda r: f"{r['cycles_per_move']:.2f} clocks per move ({r['cycles']} clocks for "
                  f"{r['moves']} moves)")
    add("compiled model (CXXRTL), native loop", "bench-sim", "make bench-sim",
        lambda r: f"{mega(r['native_clocks_per_s'][1])} clocks/s, "
                  f"{thousands(r['native_x_pysim'][1])}x Amaranth's simulator")
    add("ULX3S-25F: the perft chip behind its UART front end", "synth", "make synth",
        lambda r: f"Fmax {r['fmax_mhz']:.2f} MHz against {r['constraint_mhz']:g}; "
                  f"{percent_of(r['utilization'], 'LUT4 (TRELLIS_COMB)')} LUT4, "
                  f"{percent_of(r['utilization'], 'DP16KD (EBR)')} DP16KD")
    add("perft chip, one engine, perft(5) of the initial position", "bench-chip",
        "make bench-chip", chip_figure)
    add("posdata ROMs per engine (walk + start tables)", "bench-chip", "make bench-chip",
        lambda r: f"{r['rom_blocks']['dense']} DP16KD dense, {r['rom_blocks']['sparse']} "
                  "sparse")
    add("ULX3S-85F, eight engines: bulk perft(6) projected at the routed Fmax", "chip-85f",
        "make measurements-long",
        lambda r: f"{mega(r['many_engines']['leaves_per_s'])} leaves/s at "
                  f"{r['many_engines']['mhz']:g} MHz "
                  f"({r['many_engines']['clocks_per_leaf']:.4f} clocks per leaf)")
    add("TSCP search, eight positions, on the reference walk and on the move generator",
        "search-hw",
        "make bench-search", lambda r: search_figure(runs.get("search"), r))
    add("the search thread: the host's search of the bench positions, depth 4, chip depth 2",
        "search-chip", "make bench-search",
        lambda r: f"{r['clocks_per_node']:.2f} clocks per node; "
                  + (f"{r['mhz'] / r['with_load']:.2f} M nodes/s per thread at {r['mhz']:g} MHz"
                     if r.get("mhz") else "no search board build to project at"))
    add("ULX3S-25F: the search thread behind its UART front end", "synth-search",
        "make measurements",
        lambda r: f"Fmax {r['fmax_mhz']:.2f} MHz against {r['constraint_mhz']:g}; "
                  f"{percent_of(r['utilization'], 'LUT4 (TRELLIS_COMB)')} LUT4, "
                  f"{percent_of(r['utilization'], 'DP16KD (EBR)')} DP16KD")
    if runs.get("play"):
        add("playing strength: the chip's search against the software search", "play",
            "make bench-play", play_figure)
    return rows


def whole_figure(r: dict) -> str:
    w = r["whole_process"]
    return (f"perft({w['depth']}) of the {w['position']} position in {w['seconds']:.2f} s, "
            f"{w['ratio']:.2f}x {r['peer'].split()[0]} ({w['peer_seconds']:.2f} s)")


def play_figure(r: dict) -> str:
    """The chip's match score and Elo, and the suite's solved counts."""
    out = []
    if "match" in r:
        m = r["match"]
        out.append(f"{m['games']} games at depth {r['depth']}: chip +{m['wins']} ={m['draws']} "
                   f"-{m['losses']}, {100 * m['score']:.1f} %, Elo {elo.text(m)}")
    if "suite" in r:
        s = r["suite"]
        out.append(f"{s['name']} at depth {s['depth']}: " + ", ".join(
            f"{k} {n}" for k, n in s["solved"].items()) + f" of {s['positions']}")
    return "; ".join(out)


def chip_figure(r: dict) -> str:
    """The one-engine chip on the initial position: clocks per leaf, leaves/s at Fmax."""
    p = next(p for p in r["positions"] if p["position"] == "initial")
    out = (f"{p['bulk_clocks_per_leaf']:.3f} clocks per leaf bulk, "
           f"{p['plain_clocks_per_leaf']:.3f} plain")
    if p["chip_bulk_leaves_per_s"]:
        out += f": {mega(p['chip_bulk_leaves_per_s'])} leaves/s at {r['mhz']:g} MHz"
    return out


def search_figure(sw_run: dict | None, hw: dict) -> str:
    """Both generators' speed and the signature they must share."""
    if sw_run is None:
        return (f"depth {hw['depth']}: {thousands(hw['nps'])} nodes/s (the generator); "
                f"signature {hw['signature']}")
    sw = sw_run["results"]
    if sw["signature"] != hw["signature"] or sw["depth"] != hw["depth"]:
        return (f"signatures differ: the reference walk {sw['signature']} (depth "
                f"{sw['depth']}), the generator {hw['signature']} (depth {hw['depth']})")
    return (f"depth {hw['depth']}: {thousands(sw['nps'])} nodes/s (the reference walk), "
            f"{thousands(hw['nps'])} (the generator); signature {hw['signature']} on both")


def headline_table(data: dict) -> str:
    """The headline figures' table: each figure with its command and where it was measured."""
    runs = data["runs"]
    lines = ["| what | figure | reproduce | measured at |", "|---|---|---|---|"]
    for what, figure, command, run_id in headlines(runs):
        run = runs.get(run_id)
        when = f"{run['commit']}, {run['date']}" if run else "-"
        if run and run.get("carried"):
            when += " (long run)"
        lines.append(f"| {what} | {figure} | `{command}` | {when} |")
    return "\n".join(lines)


def readme_block(data: dict) -> str:
    """The README's marked block: the headline table and the charts that matter most."""
    runs = data["runs"]
    lines = [BEGIN, "", headline_table(data)]
    shown = [name for name in charts.available(runs) if name in charts.README_CHARTS]
    if shown:
        lines += [""] + [f"![{name[:-4]}](docs/{charts.CHARTS}/{name})" for name in shown]
    lines += ["", END]
    return "\n".join(lines)


# ---- the full report ---------------------------------------------------------------------

def section_bench(r: dict) -> list[str]:
    out = ["| mode | position | depth | nodes | ours nodes/s | python-chess nodes/s | ratio |",
           "|---|---|---|---|---|---|---|"]
    for mode in ("plain", "bulk"):
        for p in r[mode]["positions"]:
            out.append(f"| {mode} | {p['position']} | {p['depth']} | {thousands(p['nodes'])} | "
                       f"{thousands(p['nps'])} | {thousands(p['peer_nps'])} | "
                       f"{p['ratio']:.2f} |")
        out.append(f"| {mode} | **all** | | {thousands(r[mode]['nodes'])} | "
                   f"**{thousands(r[mode]['nps'])}** | {thousands(r[mode]['peer_nps'])} | "
                   f"**{r[mode]['ratio']:.2f}** |")
    out.append("")
    out.append(f"Peer: {r['peer']}, medians of {r['repeat']} alternating runs ({r['python']}).")
    if "whole_process" in r:
        w = r["whole_process"]
        out += ["", f"The whole process, start to exit: plain perft({w['depth']}) of the "
                    f"{w['position']} position ({thousands(w['nodes'])} nodes), and each "
                    "process's start-up alone (the same command at depth 1).", "",
                "| process | seconds | start-up | command |", "|---|---|---|---|",
                f"| ours | **{w['seconds']:.2f}** | {w['startup_seconds']:.2f} | "
                f"`{w['command']}` |",
                f"| python-chess | {w['peer_seconds']:.2f} | {w['peer_startup_seconds']:.2f} | "
                f"{w['peer_command']} |",
                "", f"Ratio (python-chess time / ours): **{w['ratio']:.2f}**."]
    return out


def section_hw(r: dict) -> list[str]:
    out = ["| position | clocks | moves | walk entries | pieces | clocks/move |",
           "|---|---|---|---|---|---|"]
    for p in r["positions"]:
        out.append(f"| {p['position']} | {p['cycles']} | {p['moves']} | {p['walk_entries']} | "
                   f"{p['pieces']} | {p['cycles'] / p['moves']:.2f} |")
    out.append(f"| **all six** | {r['cycles']} | {r['moves']} | {r['walk_entries']} | "
               f"{r['pieces']} | **{r['cycles_per_move']:.3f}** |")
    spare = r["spare_clocks"]
    out += ["", f"Walk entries per move {r['walk_entries_per_move']:.3f}. Clocks that read no "
                f"entry: {spare['start-up']} before the first step, {spare['idle']} idle "
                f"logic-stage clocks, {spare['stalls']} stalls on a full FIFO, "
                f"{spare['after']} after the last step."]
    return out


def section_sim(r: dict) -> list[str]:
    out = ["| run | clocks/s | x Amaranth's simulator |", "|---|---|---|"]
    peer = r["pysim_clocks_per_s"]
    for row in r["rows"]:
        out.append(f"| {row['label']} | {thousands(row['clocks_per_s'])} | "
                   f"{thousands(row['clocks_per_s'] / peer)} |")
    out += ["", "Clocks counted as the gateware counts them: squares written + busy cycles."]
    return out


def load_text(r: dict) -> str:
    """The machine's load average around a bench's run (its JSON's load_before/load_after)."""
    return (f"Load average {' '.join(map(str, r['load_before']))} before, "
            f"{' '.join(map(str, r['load_after']))} after.")


def section_sim_chip(r: dict) -> list[str]:
    out = ["| simulator | first compile (CPU) | bulk clocks/s | plain clocks/s "
           "| x CXXRTL (bulk, plain) |", "|---|---|---|---|---|"]
    for row in r["rows"]:
        took = row["compile_seconds"]
        took = "cached" if took is None else f"{took:.0f} s ({row['compile_cpu_seconds']:.0f} s)"
        out.append(f"| {row['label']} | {took} | "
                   f"{thousands(row['bulk_clocks_per_s'])} | "
                   f"{thousands(row['plain_clocks_per_s'])} | "
                   f"{row['bulk_x_cxxrtl']:.2f}, {row['plain_x_cxxrtl']:.2f} |")
    out += ["", f"perft({r['depth']}) of the initial position on the chip of {r['engines']} "
            f"engine(s): {thousands(r['clocks']['bulk'])} clocks bulk, "
            f"{thousands(r['clocks']['plain'])} plain, the same on every simulator; the median "
            f"of {r['rounds']} alternating rounds. {load_text(r)}"]
    return out


def section_search(r: dict) -> list[str]:
    out = ["| position | nodes | seconds | score | best |", "|---|---|---|---|---|"]
    for p in r["positions"]:
        out.append(f"| {p['position']} | {thousands(p['nodes'])} | {p['seconds']:.2f} | "
                   f"{p['score']} | {p['best']} |")
    out += ["", f"Depth {r['depth']}, move generator {r['movegen']}: {thousands(r['nodes'])} "
                f"nodes in {r['seconds']:.2f} s, {thousands(r['nps'])} nodes/s; "
                f"signature {r['signature']}."]
    return out


def section_search_chip(r: dict) -> list[str]:
    mhz = r["mhz"]
    out = ["| position | host nodes | jobs | thread nodes | clocks/node (with load) | match "
           "| projected nodes/s | GNU Chess nodes/s |", "|---|---|---|---|---|---|---|---|"]
    for p in r["rows"]:
        loaded = (p["clocks"] + p["load_clocks"]) / p["chip_nodes"]
        projected = mega(mhz * 1e6 / loaded, 2) if mhz else "-"
        theirs = (mega(p["gnuchess_nodes"] / p["gnuchess_seconds"], 2)
                  if p["gnuchess_nodes"] else "not installed")
        out.append(f"| {p['position']} | {thousands(p['nodes'])} | {thousands(p['jobs'])} | "
                   f"{thousands(p['chip_nodes'])} | {p['clocks'] / p['chip_nodes']:.2f} "
                   f"({loaded:.2f}) | {p['match']} | {projected} | {theirs} |")
    out += ["", f"Host depth {r['depth']}, chip depth {r['chip_depth']}, the compiled thread "
                f"held to the reference (score, best move, PV, nodes). Whole tree "
                f"{r['clocks_per_node']:.2f} clocks per node, {r['with_load']:.2f} with each "
                f"job's load; mean of positions {r['mean_of_positions']:.2f} (the design note's "
                f"estimate {r['estimate']})."]
    if mhz:
        out.append(f"Projected per thread at {r['clock']}: "
                   f"{mega(mhz * 1e6 / r['mean_of_positions'], 2)} nodes/s (mean of positions).")
    g = r["gnuchess"]
    if g:
        out.append(f"{g['version']}, one thread, depth {g['depth']}, measured in the "
                   f"same run: {mega(g['nodes'] / g['seconds'], 2)} nodes/s ({g['nodes']:,} "
                   f"nodes in {g['seconds']:.2f} s). A node: ours, every node the thread enters "
                   f"(quiescence and settled children included); GNU Chess's, its own counter "
                   f"over search and quiescence, on its pruned tree (hash, null move).")
    else:
        out.append("GNU Chess: not installed in this run.")
    return out


def _out_of_context(r: dict) -> str:
    """How bench/search_area.py built what a section reports."""
    return (f"on the ECP5 {r['device']} out of context (Yosys synth_ecp5 -abc9, nextpnr-ecp5, "
            f"seed {', '.join(map(str, r['seeds']))}, target {r['target_mhz']:g} MHz)")


def section_search_area(r: dict) -> list[str]:
    out = ["| Fmax (MHz) | TRELLIS_COMB | FF | DP16KD | MULT18X18D | critical path |",
           "|---|---|---|---|---|---|"]
    for p in r["parts"]:
        out.append(f"| {p['fmax_mhz']:.2f} | {thousands(p['trellis_comb'])} | "
                   f"{thousands(p['trellis_ff'])} | {p['dp16kd']} | {p['mult18x18d']} | "
                   f"{p.get('critical_path', '')} |")
    out += ["", f"The search thread alone {_out_of_context(r)}, elaborated with the ECP5's "
                "block RAM and multiplier primitives; no front end, no pins."]
    return out


def section_search_stages(r: dict) -> list[str]:
    out = ["| part | Fmax (MHz) | LUT4 alone | FF alone | DP16KD | MULT18X18D | critical path |",
           "|---|---|---|---|---|---|---|"]
    for p in r["parts"]:
        out.append(f"| {p['part']} | {p['fmax_mhz']:.2f} | {thousands(p.get('alone_lut4', 0))} "
                   f"| {thousands(p.get('alone_ff', 0))} | {p.get('dp16kd', 0)} | "
                   f"{p.get('mult18x18d', 0)} | {p.get('critical_path', '')} |")
    out += ["", f"Each part alone {_out_of_context(r)}, its ports registered so that every "
                "path runs between registers; its cells from a synthesis without those "
                "registers. The capture pipe and the evaluation pipe are the pipelined "
                "thread's stages (docs/chip_search.md); the capture finder and the child "
                "evaluation are the parts of today's thread they replace."]
    return out


def section_search_threads(r: dict) -> list[str]:
    out = ["| threads | nodes | rounds | jobs | match | host s | link s | chip s | total s "
           "| projected nodes/s | vs GNU Chess | protocol-v2 client's link s | clock |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    g = r["gnuchess"]
    theirs = g["nodes"] / g["seconds"] if g else None
    for row in r["rows"]:
        clock = row["clock"]
        if clock is None:
            out.append(f"| {row['threads']} | {thousands(row['nodes'])} | {row['rounds']} | "
                       f"{row['jobs']} | {row['match']} | {row['host_s']:.3f} | - | - | - | - "
                       f"| - | - | no build with {row['threads']} threads |")
            continue
        rate = row["nodes_per_s"]
        versus = f"{rate / theirs:.2f}x" if theirs else "-"
        where = "--mhz" if clock["source"] == "--mhz" else f"{clock['board']}, {clock['commit']}"
        out.append(f"| {row['threads']} | {thousands(row['nodes'])} | {row['rounds']} | "
                   f"{row['jobs']} | {row['match']} | {row['host_s']:.3f} | {row['link_s']:.3f} "
                   f"| {row['chip_s']:.3f} | {row['total_s']:.3f} | {mega(rate, 2)} | {versus} "
                   f"| {row['v2_link_s']:.3f} | {clock['mhz']:g} MHz ({where}) |")
    out += ["", f"Host depth {r['depth']}, chip depth {r['chip_depth']}, the eight bench "
                f"positions over N compiled threads, held to the serial search (score, best "
                f"move, PV); the link at {r['baud']:,} baud and {r['latency_ms']:g} ms an "
                f"exchange; the host's own time replayed on this machine (bench/"
                f"search_threads.py says how each column is counted)."]
    if g:
        out.append(f"{g['version']}, one thread, depth {g['depth']}, measured in the same run: "
                   f"{mega(theirs, 2)} nodes/s.")
    else:
        out.append("GNU Chess: not installed in this run.")
    return out


def section_search_pipeline(r: dict) -> list[str]:
    out = ["| segment | share /node | today /seg. | pipelined /seg. | today /node "
           "| pipelined /node |", "|---|---|---|---|---|---|"]
    for row in r["table"]:
        cells = [row.get(k) for k in ("share", "today", "pipelined", "today_per_node",
                                      "pipelined_per_node")]
        out.append(f"| {row['segment']} | " + " | ".join(
            "" if v is None else f"{v:.3f}" if i == 0 else f"{v:.2f}"
            for i, v in enumerate(cells)) + " |")
    today = r["today_model"]
    out += ["", f"Host depth {r['depth']}, chip depth {r['chip_depth']}, {r['nodes']:,} nodes: "
                f"today's rules give Next {today['Next']:.2f}, Test {today['Test']:.2f}, Judge "
                f"{today['Judge']:.2f} clocks per node (the thread's own accounts beside them: "
                f"{r['states_from'] or 'none'}); the pipelined stream {r['stream']:.2f}."]
    if r.get("estimate") is not None:
        loads = (f", {r['with_load']:.1f} with the loads" if r.get("with_load") is not None
                 else "")
        out.append(f"Estimate for the pipelined thread: kept {r['kept']:.2f} + stream "
                   f"{r['stream']:.2f} = **{r['estimate']:.1f} clocks per node**{loads}.")
    else:
        out.append("No estimate: the search-chip run holds no clocks by state.")
    return out


def section_sim_models(r: dict) -> list[str]:
    out = ["| design | simulator | first compile (CPU) | run | speed | compile + run |",
           "|---|---|---|---|---|---|"]
    for d in r["designs"]:
        key = d["unit"].replace(" ", "_") + "_per_s"
        for row in d["rows"]:
            took = row["compile_seconds"]
            took = ("cached" if took is None
                    else f"{took:.1f} s ({row['compile_cpu_seconds']:.1f} s)")
            total = row["end_to_end_seconds"]
            out.append(f"| {d['design']} | {row['simulator']} | {took} | "
                       f"{row['run_seconds']:.2f} s | {thousands(row[key])} {d['unit']}/s | "
                       f"{'-' if total is None else f'{total:.1f} s'} |")
    out += ["", f"The board: self-test, perft({r['depth']}) bulk and plain; the search: the "
                f"eight bench positions at depth {r['search_depth']}, chip depth "
                f"{r['chip_depth']}. First compile into an empty model cache, then the median of "
                f"{r['rounds']} alternating rounds. {load_text(r)}"]
    return out


def section_play(r: dict) -> list[str]:
    out = []
    if "match" in r:
        m = r["match"]
        spm = ", ".join(f"{k} {v:.3f}" for k, v in m["seconds_per_move"].items()
                        if v is not None)
        out += [f"The chip's search (the host's search to depth {r['depth']} over the chip's "
                f"evaluation, chip depth {r['chip_depth']}, leaf {r['leaf']}) against the "
                f"software search (Searcher, eval.py, depth {r['depth']}), played by `posdata "
                f"match`: {m['games']} games from {m['openings']} book openings, either side "
                f"white, ply cap {m['ply_cap']} (adjudicated on material).", "",
                "| chip | wins | draws | losses | score |", "|---|---|---|---|---|"]
        for label, t in (("as white", m["as_white"]), ("as black", m["as_black"]),
                         ("**all**", m)):
            n = t["wins"] + t["draws"] + t["losses"]
            score = (t["wins"] + t["draws"] / 2) / n if n else 0
            out.append(f"| {label} | {t['wins']} | {t['draws']} | {t['losses']} | "
                       f"{100 * score:.1f} % |")
        out += ["", f"Elo difference (chip - software): **{elo.text(m)}** (95 %: D(p) = "
                    "-400 log10(1/p - 1), the interval of p from the games' score variance, "
                    "engine/match/elo.py). Endings: " + ", ".join(
                        f"{k} {v}" for k, v in m["endings"].items())
                + f". {m['games_per_s']:.3f} games/s, {r['jobs']} games at once; seconds per "
                  f"move: {spm}. Games digest {m['digest']}.", ""]
    if "suite" in r:
        s = r["suite"]
        out += [f"{s['name']}, {s['positions']} positions at depth {s['depth']} (solved: the "
                "move is in bm and not in am):", "",
                "| searcher | solved | nodes | seconds |", "|---|---|---|---|"]
        for k, n in s["solved"].items():
            out.append(f"| {k} | **{n}** | {thousands(s['nodes'][k])} | "
                       f"{s['seconds'][k]:.1f} |")
        if s["agree"] is not None:
            out += ["", "chip-ref and chip-hw agree at every position (move, score, nodes)."
                    if s["agree"] else f"chip-ref and chip-hw differ at "
                    f"{len(s['differences'])} positions: "
                    + ", ".join(d["id"] for d in s["differences"]) + "."]
    return out


def section_chip(r: dict) -> list[str]:
    out = ["| position | depth | leaves | bulk clocks/leaf | plain clocks/leaf | "
           "bulk leaves/s at Fmax | software bulk nodes/s | Stockfish nodes/s |",
           "|---|---|---|---|---|---|---|---|"]
    for p in r["positions"]:
        fish = p.get("stockfish")
        out.append(f"| {p['position']} | {p['depth']} | {thousands(p['leaves'])} | "
                   f"{p['bulk_clocks_per_leaf']:.3f} | {p['plain_clocks_per_leaf']:.3f} | "
                   f"{mega(p['chip_bulk_leaves_per_s']) if p['chip_bulk_leaves_per_s'] else '-'}"
                   f" | {thousands(p['sw_bulk_nps'])} | "
                   f"{mega(fish['nps']) + ' (d' + str(fish['depth']) + ')' if fish else '-'} |")
    out.append("")
    for mode in ("bulk", "plain"):
        phases = ", ".join(f"{k} {v} %" for k, v in r[mode]["phases_percent"].items())
        over = ("all six" if len(r["positions"]) == 6
                else ", ".join(p["position"] for p in r["positions"]))
        out.append(f"{mode}: {r[mode]['clocks_per_leaf']:.3f} clocks per leaf over {over}; "
                   f"thread clocks: {phases}.")
        out.append("")
    out.append(f"Clock: {r['mhz']:g} MHz ({r['mhz_from']}). Stockfish: "
               f"{r['stockfish'] or 'not on PATH (column skipped)'}. posdata ROMs per engine: "
               f"{r['rom_blocks']['dense']} DP16KD dense, {r['rom_blocks']['sparse']} sparse.")
    return out


def section_many(r: dict) -> list[str]:
    m = r["many_engines"]
    line = (f"Bulk perft({m['depth']}) of the initial position shared by {m['engines']} engines "
            f"({2 * m['engines']} threads, split ply {m['split']}) on the compiled chip: "
            f"{thousands(m['leaves'])} leaves in a makespan of {thousands(m['makespan_clocks'])} "
            f"clocks, **{m['clocks_per_leaf']:.4f} clocks per leaf**, threads idle "
            f"{m['idle_percent']:.1f} %.")
    if m.get("mhz"):
        line += (f" Projected at {m['mhz']:g} MHz (the ULX3S-85F build's Fmax): "
                 f"**{mega(m['leaves_per_s'])} leaves/s**.")
    if m.get("stockfish_nps"):
        line += (f" Stockfish in the same run: {mega(m['stockfish_nps'])} nodes/s "
                 f"({m['leaves_per_s'] / m['stockfish_nps']:.2f}x).")
    return [line]


def section_variants(r: dict) -> list[str]:
    out = ["| variant | tables | walk entries | perft plain | nodes/s | perft bulk | nodes/s |",
           "|---|---|---|---|---|---|---|"]
    for v in r["variants"]:
        p, b = v["plain"], v["bulk"]
        out.append(f"| {v['variant']} | {v['tables']} | {thousands(v['walk_entries'])} | "
                   f"{thousands(p['nodes'])} (d{p['depth']}) | {kilo(p['nps'])} | "
                   f"{thousands(b['nodes'])} (d{b['depth']}) | {kilo(b['nps'])} |")
    out += ["", "Walk entries: the table entries a walk can read, without the 64 start entries "
                "per table. Compare the rows with each other: one run on a shared machine."]
    return out


def section_variants_hw(r: dict) -> list[str]:
    synth = r.get("synth")
    out = ["| variant | ROM tables | walk entries | ROM depth | start entries | nodes | moves | "
           "clocks/move |" + (" DP16KD | LUT4 |" if synth else ""),
           "|---|---|---|---|---|---|---|---|" + ("---|---|" if synth else "")]
    for v in r["variants"]:
        row = (f"| {v['variant']} | {v['tables']} | {thousands(v['walk_entries'])} | "
               f"{thousands(v['rom_depth'])} ({v['addr_bits']} bits) | {v['start_entries']} | "
               f"{v['nodes']} | {thousands(v['moves'])} | {v['cycles_per_move']:.3f} |")
        if synth:
            row += (f" {v['dp16kd']} | {thousands(v['lut4'])} |" if v.get("dp16kd") is not None
                    else " (chess's) | |")
        out.append(row)
    out += ["", "Clocks per move over every node of the perft(2) trees of the variant's sample "
                "positions (sim/runs/variant_positions.py) on the compiled generator."]
    return out


def section_variants_chip(r: dict) -> list[str]:
    out = ["| variant | depth | leaves | chip clocks | clocks/leaf | vs chess |",
           "|---|---|---|---|---|---|"]
    for v in r["variants"]:
        ratio = f"{v['vs_chess']:.2f}x" if "vs_chess" in v else ""
        out.append(f"| {v['variant']} | {v['depth']} | {thousands(v['leaves'])} | "
                   f"{thousands(v['clocks'])} | {v['clocks_per_leaf']:.3f} | {ratio} |")
    out += ["", "Bulk perft of each variant's start position on its compiled perft chip (one "
                "engine); every count equals the software's. Bulk counting pays per node, so a "
                "variant with more moves per position spends fewer clocks per leaf."]
    return out


def section_variants_first_runs(r: dict) -> list[str]:
    out = ["| backend | variant | wall | against the first | libraries in the cache |",
           "|---|---|---|---|---|"]
    for v in r["runs"]:
        out.append(f"| {v['backend']} | {v['variant']} | {v['wall_s']:.1f} s | "
                   f"{v['vs_first']:.2f}x | {v['libraries']} |")
    out += ["", "The first `posdata perft --backend hw|gen --variant NAME --depth 2` of each "
                "variant, one after another, from an empty model cache: a variant of the same "
                "RTL as one run before it (almost after chess; amazon after nightrider on the "
                "generator) loads its memory image into the compiled library instead of "
                "compiling one (sim.models.memory_images). On the perft chip nightrider has rays "
                "of its own and amazon, nightrider and chigorin other geometries, so each "
                "compiles."]
    return out


def section_synth(r: dict) -> list[str]:
    util = r["utilization"]
    carries = (f"{r.get('threads', 1)} search thread(s)" if r.get("design") == "search thread"
               else f"{r.get('engines') or 0} perft engine(s)")
    out = [f"{r['board']} ({r['device']}), {carries}, seed "
           f"{r['seed']}: **Fmax {r['fmax_mhz']:.2f} MHz** against {r['constraint_mhz']:g} MHz "
           f"({'met' if r['timing_met'] else 'not met'}).", ""]
    if r.get("refitted"):  # a search build that picked its clock
        f = r["refitted"]
        out += [f"Built first at {f['first_mhz']:g} MHz (Fmax {f['first_fmax_mhz']:.2f} MHz), "
                f"then at the highest clock below the newest Fmax that the PLL makes and the "
                f"UART divides: {f.get('builds', 2)} builds, the last one's figures here.", ""]
    out += ["| resource | used |", "|---|---|"]
    for name in util:
        out.append(f"| {name} | {percent_of(util, name)} |")
    out.append("")
    if "cycles_per_move" not in r:  # the search board: bench-search measures the thread
        return out[:-1]
    extra = [f"generator {r['cycles_per_move']:.3f} clocks per move: "
             f"{mega(r['moves_per_second_at_fmax'])} moves/s at Fmax"]
    if r.get("chip_clocks_per_leaf"):
        extra.append(f"perft chip {r['chip_clocks_per_leaf']:.4f} clocks per leaf (bulk, the "
                     f"initial position): {mega(r['chip_leaves_per_second_at_fmax'])} leaves/s "
                     "at Fmax")
    out.append("; ".join(extra) + ".")
    return out


def section_seeds(r: dict) -> list[str]:
    seeds = " | ".join(f"{s['fmax_mhz']:.2f}" for s in r["seeds"])
    heads = " | ".join(str(s["seed"]) for s in r["seeds"])
    return [f"| seed | {heads} | min | median |",
            "|---" * (len(r["seeds"]) + 3) + "|",
            f"| Fmax (MHz) | {seeds} | **{r['min_fmax_mhz']:.2f}** | {r['median_fmax_mhz']:.2f} |",
            "", f"{r['board']} against {r['constraint_mhz']:g} MHz: "
                f"{'met at every seed' if r['all_met'] else 'not met at every seed'}."]


def section_scale(r: dict) -> list[str]:
    out = ["| backend | count | -j 1 s | -j 2 s | speed-up |", "|---|---|---|---|---|"]
    for p in r["perft"]:
        out.append(f"| {p['backend']} | `{' '.join(p['argv'])}` | {p['j1']['seconds']:.1f} | "
                   f"{p['j2']['seconds']:.1f} | {p['speedup']:.2f}x |")
    out += ["", "| simulator | generations | M clocks/s |", "|---|---|---|"]
    for s in r["simulators"]:
        out.append(f"| {s['target']} | {s['generations']} | {s['clocks_per_s'] / 1e6:.3f} |")
    return out


def section_features(r: dict) -> list[str]:
    games = r.get("games")
    out = [f"Host depth {r['depth']}, chip depth {r['chip_depth']}, the eight bench positions, "
           "each row one feature more than the row above (the last: what the thread builds)."
           + (f" Games: {games} a row at depth {r['match_depth']} against the software search."
              if games else ""), "",
           "| features | nodes | change | extended | evasion nodes | in-check waits | draws | "
           "walks | est. clocks/node |" + (" score | Elo | threefold |" if games else ""),
           "|---" * (9 + (3 if games else 0)) + "|"]
    previous = None
    for row in r["rows"]:
        s = row["stats"]
        change = f"{(row['nodes'] / previous - 1) * 100:+.1f} %" if previous else ""
        line = (f"| {row['features']} | {row['nodes']:,} | {change} | {s['extended']:,} | "
                f"{s['evasion']:,} | {s['check_waits']:,} | {s['draws']:,} | {s['walks']:,} | "
                f"{row['estimate']:.2f} |")
        if games:
            m = row["match"]
            line += (f" {m['score']:.1%} | {elo.text(m)} | "
                     f"{m['threefold']} |")
        out.append(line)
        previous = row["nodes"]
    if "iterations" in r:
        it = r["iterations"]
        out += ["", f"The host's move order: iterative deepening 1 .. {r['depth']} takes "
                    f"{it['plain']:,} nodes with each iteration on its own, {it['pv_first']:,} "
                    "with the previous iteration's PV move first at the host's plies "
                    f"({(it['pv_first'] / it['plain'] - 1) * 100:+.1f} %)."]
    return out


def section_note(r: dict) -> list[str]:
    return [r["text"]]


#: run id -> (title, renderer); the order of docs/measurements.md
#: the variants with modes an ECP5 board plays, a build each (measure.py's synth-VARIANT jobs,
#: SECTIONS' titles; berolina's since protocol 4 carries its en passant victim)
MODES_BOARDS = ("grasshopper", "hoppelpoppel", "berolina", "shatranj", "makruk", "pawnsideways")

SECTIONS = {
    "bench": ("Software perft against python-chess", section_bench),
    "bench-hw": ("The move generator's clocks on the six standard positions", section_hw),
    "bench-sim": ("Simulation speed: compiled model against Amaranth's simulator", section_sim),
    "bench-sim-chip": ("Simulation speed: the perft chip under CXXRTL and Verilator",
                       section_sim_chip),
    "synth-search": ("ULX3S-25F search board (the search thread, UART front end)",
                     section_synth),
    "search": ("Search, software generator", section_search),
    "search-hw": ("Search, hardware generator (compiled model)", section_search),
    "search-chip": ("Search, the chip's search thread (compiled model) beside GNU Chess",
                    section_search_chip),
    "search-threads": ("Search boards with N threads, projected with the host and the link",
                       section_search_threads),
    "search-pipeline": ("The pipelined thread's clocks per node, estimated from the "
                        "reference's events", section_search_pipeline),
    "search-area": ("The search thread alone on the 25F, out of context", section_search_area),
    "search-stages": ("The pipelined thread's stages alone on the 25F, beside the parts they "
                      "replace", section_search_stages),
    "features": ("What each feature of the chip's search buys", section_features),
    "play": ("Playing strength: the chip's search against the software search", section_play),
    "synth": ("ULX3S-25F build (the board: perft chip, UART front end, self-test)",
              section_synth),
    "bench-chip": ("The perft chip, one engine", section_chip),
    "bench-chip-all": ("The perft chip, one engine, the six positions", section_chip),
    "variants": ("Variants: software perft and table sizes", section_variants),
    "variants-hw": ("Variants: the move generator", section_variants_hw),
    "variants-chip": ("Variants: the perft chip", section_variants_chip),
    # the long runs (make measurements-long)
    "synth-85f": ("ULX3S-85F build, eight engines", section_synth),
    "chip-85f": ("ULX3S-85F, eight engines: bulk perft(6) projected", section_many),
    "synth-85f-seeds": ("ULX3S-85F, eight engines, placement seeds", section_seeds),
    "synth-85f-six": ("ULX3S-85F build, six engines", section_synth),
    "synth-grasshopper": ("ULX3S-25F build, the perft chip of grasshopper", section_synth),
    "synth-hoppelpoppel": ("ULX3S-25F build, the perft chip of hoppelpoppel", section_synth),
    "synth-berolina": ("ULX3S-25F build, the perft chip of berolina", section_synth),
    "synth-shatranj": ("ULX3S-25F build, the perft chip of shatranj", section_synth),
    "synth-makruk": ("ULX3S-25F build, the perft chip of makruk", section_synth),
    "synth-pawnsideways": ("ULX3S-25F build, the perft chip of pawnsideways", section_synth),
    "synth-85f-search": ("ULX3S-85F search board, four threads", section_synth),
    "synth-seeds": ("ULX3S-25F, placement seeds", section_seeds),
    "icebreaker-seeds": ("iCEBreaker (iCE40 UP5K), the generator alone, placement seeds",
                         section_seeds),
    "bench-sim-models": ("Simulation speed: the board design and the search thread under "
                         "CXXRTL and Verilator", section_sim_models),
    "variants-synth": ("Variants: the generator after synth_ecp5", section_variants_hw),
    "variants-first-runs": ("Variants: first runs from an empty model cache",
                            section_variants_first_runs),
    "scale": ("-j 2 against -j 1, and the three simulators", section_scale),
    "stockfish-one-engine": ("The perft chip against Stockfish", section_note),
}


def run_heading(run_id: str, run: dict) -> list[str]:
    title = SECTIONS[run_id][0]
    took = run.get("seconds")
    seconds = ("" if not took else f", {took:.0f} s" if took < 90 else f", {took / 60:.1f} min")
    out = [f"### {title}", "", f"`{run['command']}` at {run['commit']}, {run['date']}{seconds}"]
    if run.get("carried"):
        out[-1] += " (carried over from the README; not rerun since)"
    if run.get("note"):
        out += ["", run["note"]]
    return out + [""]


def section(run_id: str, run: dict) -> list[str]:
    """One run's heading and its figures (a run carried over as prose keeps its text)."""
    results = run["results"]
    body = section_note(results) if "text" in results else SECTIONS[run_id][1](results)
    return run_heading(run_id, run) + body + [""]


def markdown(data: dict) -> str:
    runs = data["runs"]
    out = ["# Measurements", "",
           "Generated by `make measurements` (bench/measure.py, the quick set: a "
           "quarter of an hour on 2 cores) and `make measurements-long` (the long runs: hours); "
           "rendered by bench/report.py from docs/measurements.json. Do not edit by hand: a "
           "test holds this file and the README's figures to the JSON.",
           "",
           "Every figure names the command that produced it, the commit it ran at (`-dirty`: "
           "with uncommitted changes) and the date. The benches ran with `--json FILE`, which "
           "only writes what they print. Absolute speeds drift on a shared machine: the ratios "
           "are against a peer measured in the same run.", "",
           "## Headline figures", "", headline_table(data), ""]
    drawn = charts.available(runs)
    if drawn:
        out += ["## Charts", "", "Drawn by bench/charts.py from the same JSON (matplotlib, "
                "SVG).", ""] + [f"![{name[:-4]}]({charts.CHARTS}/{name})" for name in drawn] + [""]
    out += ["## The quick set (`make measurements`)", ""]
    long_ids = data.get("long", [])
    for run_id in SECTIONS:
        if run_id in runs and run_id not in long_ids:
            out += section(run_id, runs[run_id])
    out += ["## The long runs (`make measurements-long`)", "",
            "Builds of the ULX3S-85F take 25-70 minutes each and its perft(6) projection about "
            "20; a figure here keeps the commit it was measured at until the target is run "
            "again.", ""]
    for run_id in SECTIONS:
        if run_id in runs and run_id in long_ids:
            out += section(run_id, runs[run_id])
    return "\n".join(out).rstrip("\n") + "\n"


def replace_block(readme: str, block: str) -> str:
    """``readme`` with its marked block replaced by ``block`` (ValueError without markers)."""
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < start:
        raise ValueError("README.md has no measurements block (its begin/end markers)")
    return readme[:start] + block + readme[end + len(END):]


def write_whole(path: str, text: str) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def render(data_path: str = DATA, markdown_path: str = MARKDOWN,
           readme_path: str = README) -> None:
    data = load(data_path)
    charts.draw(data["runs"], os.path.dirname(markdown_path))
    write_whole(markdown_path, markdown(data))
    with open(readme_path) as f:
        readme = f.read()
    write_whole(readme_path, replace_block(readme, readme_block(data)))


def main() -> int:
    try:
        render()
    except (OSError, ValueError, KeyError) as e:
        print(f"bench/report.py: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {os.path.relpath(MARKDOWN)} and the figures of {os.path.relpath(README)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
