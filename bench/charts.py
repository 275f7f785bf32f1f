"""Charts of docs/measurements.json, drawn with matplotlib as SVG into docs/charts/: what people
who pick an FPGA design or an engine look at. bench/report.py calls ``draw`` each time it writes
docs/measurements.md (``make measurements``, ``make docs``); a chart whose runs are not in the
JSON is not drawn (and not linked): ``available`` says which are, without drawing.

* ``fmax-seeds.svg``: Fmax per placement seed and board against each board's constraint;
* ``resources.svg``: LUT4, flip-flops and block RAM of each build, as a share of its device;
* ``clocks-per-position.svg``: the search thread's clocks per node on each bench position;
* ``peers.svg``: each speed against the peer measured in the same run (ratio, log scale);
* ``match.svg``: the chip's search against the software search, score and Elo with its 95 % bar.

The files are written whole (a temp name, then rename) and drawn without a date or random ids,
so the same JSON gives the same bytes."""

import io
import math
import os

CHARTS = "charts"  #: the folder beside docs/measurements.md
#: the two the README shows: what a board reaches, and how it stands against its peers
README_CHARTS = ("fmax-seeds.svg", "peers.svg")


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"svg.hashsalt": "posdata", "svg.fonttype": "none",
                         "font.size": 9, "figure.dpi": 100})
    return plt


def _svg(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    return buffer.getvalue()


SEED_RUNS = (("synth-seeds", "ULX3S-25F perft board"),
             ("synth-85f-seeds", "ULX3S-85F, eight engines"),
             ("icebreaker-seeds", "iCEBreaker generator"))
BUILDS = (("synth", "25F perft board"), ("synth-search", "25F search board"),
          ("synth-85f", "85F, 8 engines"), ("synth-85f-search", "85F, 4 threads"))


def _seed_runs(runs: dict) -> list:
    return [(job, label) for job, label in SEED_RUNS if job in runs]


def _builds(runs: dict) -> list:
    return [(job, label) for job, label in BUILDS
            if job in runs and "utilization" in runs[job]["results"]]


def _match(runs: dict) -> dict | None:
    m = runs.get("play", {}).get("results", {}).get("match")
    return m if m and m["wins"] + m["draws"] + m["losses"] else None


def fmax_seeds(runs: dict, plt):
    boards = _seed_runs(runs)
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    for x, (job, label) in enumerate(boards):
        r = runs[job]["results"]
        seeds = [row["fmax_mhz"] for row in r["seeds"]]
        ax.scatter([x] * len(seeds), seeds, zorder=3, label=None)
        ax.hlines(r["constraint_mhz"], x - 0.3, x + 0.3, colors="grey", linestyles="dashed")
        ax.annotate(f"median {r['median_fmax_mhz']:.1f}", (x + 0.08, r["median_fmax_mhz"]),
                    fontsize=8)
    ax.set_xticks(range(len(boards)), [label for _, label in boards])
    ax.set_xlim(-0.5, len(boards) - 0.5)
    ax.set_ylabel("Fmax, MHz (dashed: the constraint)")
    ax.set_title("Fmax per placement seed")
    ax.grid(axis="y", alpha=0.3)
    return fig


RESOURCES = (("LUT4 (TRELLIS_COMB)", "LUT4"), ("FF (TRELLIS_FF)", "FF"),
             ("DP16KD (EBR)", "block RAM"))


def _share(used: dict) -> float:
    """A resource's share of the device, %, from what the report gives (older reports: no
    percent)."""
    if "percent" in used:
        return used["percent"]
    return 100 * used["used"] / used["available"] if used.get("available") else 0


def resources(runs: dict, plt):
    builds = _builds(runs)
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    width = 0.8 / len(RESOURCES)
    for i, (key, name) in enumerate(RESOURCES):
        shares = [_share(runs[job]["results"]["utilization"].get(key, {})) for job, _ in builds]
        ax.bar([x + (i - 1) * width for x in range(len(builds))], shares, width, label=name)
    ax.set_xticks(range(len(builds)), [label for _, label in builds])
    ax.set_ylabel("share of the device, %")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=8)
    ax.set_title("Resources per build")
    ax.grid(axis="y", alpha=0.3)
    return fig


def clocks_per_position(runs: dict, plt):
    rows = runs["search-chip"]["results"]["rows"]
    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    names = [row["position"] for row in rows]
    ax.bar(names, [row["clocks"] / row["chip_nodes"] for row in rows])
    whole = runs["search-chip"]["results"]["clocks_per_node"]
    ax.axhline(whole, color="grey", linestyle="dashed")
    ax.annotate(f"whole tree {whole:.2f}", (len(rows) - 1.5, whole), fontsize=8,
                xytext=(0, 3), textcoords="offset points")
    ax.set_ylabel("clocks per node")
    ax.set_title("The search thread, clocks per node per position (host depth "
                 f"{runs['search-chip']['results']['depth']}, chip depth "
                 f"{runs['search-chip']['results']['chip_depth']})")
    ax.tick_params(axis="x", labelrotation=30)
    ax.grid(axis="y", alpha=0.3)
    return fig


def _peer_ratios(runs: dict) -> list[tuple[str, float]]:
    """(what against whom, ratio) for each speed measured beside a peer in the same run."""
    out = []
    if "bench" in runs:
        r = runs["bench"]["results"]
        for mode in ("plain", "bulk"):
            out.append((f"software perft, {mode}\nagainst {r['peer']}", r[mode]["ratio"]))
    for job in ("bench-chip", "bench-chip-all"):
        if job in runs:
            for p in runs[job]["results"]["positions"]:
                fish = p.get("stockfish")
                if fish and p.get("chip_bulk_leaves_per_s"):
                    out.append((f"perft chip at Fmax, {p['position']}\nagainst Stockfish",
                                p["chip_bulk_leaves_per_s"] / fish))
            break
    if "search-chip" in runs:
        r = runs["search-chip"]["results"]
        for row in r["rows"]:
            if row.get("gnuchess_nodes") and row.get("gnuchess_seconds") and r.get("mhz"):
                thread = r["mhz"] * 1e6 / (row["clocks"] / row["chip_nodes"])
                out.append((f"search thread, {row['position']}\nagainst GNU Chess",
                            thread / (row["gnuchess_nodes"] / row["gnuchess_seconds"])))
    return out


def peers(runs: dict, plt):
    ratios = _peer_ratios(runs)
    fig, ax = plt.subplots(figsize=(6.4, 0.6 + 0.45 * len(ratios)))
    labels = [label for label, _ in ratios]
    values = [ratio for _, ratio in ratios]
    # bars from 1 (equal) to the ratio: left of 1 the peer is faster
    ax.barh(labels, [v - 1 for v in values], left=1,
            color=["tab:green" if v >= 1 else "tab:red" for v in values])
    ax.axvline(1, color="grey")
    ax.set_xscale("log")
    from matplotlib.ticker import FuncFormatter, NullFormatter
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    low, high = min(0.5, min(values) / 1.5), max(2, max(values) * 1.5)
    ax.set_xlim(low, high)
    ax.set_xticks([t for t in (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100) if low <= t <= high])
    ax.invert_yaxis()
    for y, v in enumerate(values):
        ax.annotate(f"{v:.2f}x", (v, y), xytext=(3, -3), textcoords="offset points", fontsize=8)
    ax.set_xlabel("speed against the peer measured in the same run (1 = equal)")
    ax.set_title("Against the peers")
    ax.grid(axis="x", alpha=0.3, which="both")
    return fig


def match(runs: dict, plt):
    m = _match(runs)
    n = m["wins"] + m["draws"] + m["losses"]
    score = (m["wins"] + m["draws"] / 2) / n
    # the score's 95 % interval from the games' variance, as engine/match/elo.py takes it
    variance = (m["wins"] * (1 - score) ** 2 + m["draws"] * (0.5 - score) ** 2
                + m["losses"] * score ** 2) / n
    half = 1.96 * math.sqrt(variance / n)
    fig, ax = plt.subplots(figsize=(6.4, 1.6))
    ax.errorbar([100 * score], [0], xerr=[[100 * half], [100 * half]], fmt="o", capsize=4)
    ax.axvline(50, color="grey", linestyle="dashed")
    ax.set_xlim(0, 100)
    ax.set_yticks([0], [f"{n} games, depth {runs['play']['results']['depth']}"])
    ax.set_xlabel("the chip's search's score against the software search, % (95 % interval)")
    ax.set_title(f"Match: +{m['wins']} ={m['draws']} -{m['losses']}")
    return fig


#: file -> (whether the JSON has its runs, the drawing), in the order measurements.md shows them
CHARTS_DRAWN = {
    "fmax-seeds.svg": (lambda runs: bool(_seed_runs(runs)), fmax_seeds),
    "resources.svg": (lambda runs: bool(_builds(runs)), resources),
    "clocks-per-position.svg": (lambda runs: "search-chip" in runs, clocks_per_position),
    "peers.svg": (lambda runs: bool(_peer_ratios(runs)), peers),
    "match.svg": (lambda runs: _match(runs) is not None, match),
}


def available(runs: dict) -> list[str]:
    """The charts the JSON has the runs for (what ``draw`` writes), without drawing."""
    return [name for name, (has, _) in CHARTS_DRAWN.items() if has(runs)]


def draw(runs: dict, docs: str) -> list[str]:
    """Write each chart whose runs are in ``runs`` into ``docs``/charts; their file names."""
    plt = _pyplot()
    folder = os.path.join(docs, CHARTS)
    os.makedirs(folder, exist_ok=True)
    written = []
    for name in available(runs):
        fig = CHARTS_DRAWN[name][1](runs, plt)
        data = _svg(fig)
        plt.close(fig)
        path = os.path.join(folder, name)
        temp = f"{path}.tmp"
        with open(temp, "wb") as f:
            f.write(data)
        os.replace(temp, path)
        written.append(name)
    return written
