"""Draw docs/pipeline.svg, the block diagram the README shows: `make docs` runs it.

The picture is data: every block names the file that builds it, so a test can hold the picture
to the layout of the repository (tests/test_readme.py) and to this script's output. Plain
Python, no drawing library: the SVG is written by hand, whole (temp file + rename).

Usage: python docs/draw_pipeline.py [OUT]   (default: docs/pipeline.svg beside this script)
"""

import os
import sys
from dataclasses import dataclass
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 1000, 572
FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif'"


@dataclass(frozen=True)
class Block:
    """A box: its title, one line of detail, the file that builds it (relative to the
    repository), and where it stands."""
    title: str
    detail: str
    path: str
    x: int
    y: int
    w: int = 130
    h: int = 62
    fill: str = "#eef4fb"


@dataclass(frozen=True)
class Frame:
    """A dashed frame around the blocks a unit holds: label, file, where."""
    label: str
    path: str
    x: int
    y: int
    w: int
    h: int
    label_at_top: bool = True


FRAMES = [
    Frame("perft chip: N engines, one count", "hdl/chip/perft_chip.py", 200, 14, 786, 526),
    Frame("engine (xN): one walk ROM, one start table, two threads", "hdl/chip/perft_engine.py",
          216, 150, 754, 376),
    Frame("thread (x2): the whole node loop of perft", "hdl/chip/perft_thread.py",
          230, 266, 726, 250, label_at_top=False),
]

HOST = Block("host: posdata", "perft, board, compare", "sim/cli", 20, 40, 150, 62,
             "#f6f0e4")
MODELS = Block("or simulated", "CXXRTL, Verilator, pysim", "sim/models",
               20, 420, 150, 62, "#f6f0e4")
FRONT = Block("UART front end", "protocol v4, listing RAM", "hdl/link/chip_frontend.py",
              20, 300, 150, 62, "#f3eefa")
CLAIMS = Block("claim counter", "a node at the split ply", "hdl/chip/claims.py", 230, 44, 170, 62)
SUM = Block("sum of leaves", "registered adder tree", "hdl/chip/perft_chip.py", 420, 44, 170,
            62)
START_ROM = Block("start table", "first square, base", "hdl/gen/rom.py", 384, 184, 130, 62,
                  "#fbf3df")
WALK_ROM = Block("walk ROM", "dense; ports A and B", "hdl/gen/rom.py", 528, 184, 130, 62,
                 "#fbf3df")
BOARD = Block("board planes", "colours, attackers", "hdl/chip/chessboard.py", 244, 300)
PREFETCH = Block("prefetcher", "pieces in square order", "hdl/gen/prefetch.py", 384, 300)
WALKER = Block("walker", "two walk contexts", "hdl/gen/walker.py", 528, 300)
MERGER = Block("merger", "promotions, castling", "hdl/gen/merger.py", 672, 300)
LEGAL = Block("legality unit", "5-clock pipeline", "hdl/chip/attack.py", 816, 300)
STACK = Block("move stack", "block RAM", "hdl/chip/perft_thread.py", 672, 420)
MAKE = Block("make / unmake", "undo record per ply", "hdl/chip/perft_thread.py", 384, 420)
COUNT = Block("leaf counter", "bulk or plain", "hdl/chip/perft_thread.py", 816, 420)

BLOCKS = [HOST, MODELS, FRONT, CLAIMS, SUM, START_ROM, WALK_ROM, BOARD, PREFETCH, WALKER, MERGER,
          LEGAL, STACK, MAKE, COUNT]

#: arrows: a polyline of points and an optional label at its middle segment
ARROWS = [
    ([(95, 102), (95, 300)], "USB serial, 3 Mbaud"),
    ([(170, 331), (244, 331)], ""),
    ([(374, 331), (384, 331)], ""),
    ([(449, 246), (449, 300)], "port B"),
    ([(593, 246), (593, 300)], "port A"),
    ([(514, 331), (528, 331)], ""),
    ([(658, 331), (672, 331)], ""),
    ([(802, 331), (816, 331)], ""),
    ([(910, 362), (910, 420)], "last ply"),
    ([(850, 362), (850, 390), (737, 390), (737, 420)], "interior plies"),
    ([(672, 451), (514, 451)], "next move"),
    ([(384, 451), (309, 451), (309, 362)], ""),
    ([(315, 266), (315, 106)], "claim a node"),
    ([(946, 451), (978, 451), (978, 75), (590, 75)], ""),
]


def text(x: float, y: float, s: str, size: int, weight: str = "normal",
         anchor: str = "middle", colour: str = "#1d2733") -> str:
    return (f"<text x='{x:g}' y='{y:g}' {FONT} font-size='{size}' font-weight='{weight}' "
            f"text-anchor='{anchor}' fill='{colour}'>{escape(s)}</text>")


def block(b: Block) -> list[str]:
    cx = b.x + b.w / 2
    return [f"<rect x='{b.x}' y='{b.y}' width='{b.w}' height='{b.h}' rx='6' fill='{b.fill}' "
            "stroke='#46607a' stroke-width='1.2'/>",
            text(cx, b.y + 19, b.title, 13, "bold"),
            text(cx, b.y + 36, b.detail, 10.5),
            text(cx, b.y + 52, b.path, 9, colour="#5a6b7c")]


def frame(f: Frame) -> list[str]:
    return [f"<rect x='{f.x}' y='{f.y}' width='{f.w}' height='{f.h}' rx='8' fill='none' "
            "stroke='#7f8c99' stroke-width='1.2' stroke-dasharray='6 4'/>",
            text(f.x + f.w - 10, f.y + 16 if f.label_at_top else f.y + f.h - 8,
                 f"{f.label}   ({f.path})", 11, "bold", "end", "#4b5866")]


def arrow(points: list[tuple[int, int]], label: str) -> list[str]:
    path = " ".join(f"{x},{y}" for x, y in points)
    out = [f"<polyline points='{path}' fill='none' stroke='#2f4a66' stroke-width='1.6' "
           "marker-end='url(#head)'/>"]
    if label:
        (x0, y0), (x1, y1) = points[len(points) // 2 - 1], points[len(points) // 2]
        vertical = x0 == x1
        out.append(text((x0 + x1) / 2 + (6 if vertical else 0),
                        (y0 + y1) / 2 + (4 if vertical else -5), label, 10,
                        anchor="start" if vertical else "middle", colour="#2f4a66"))
    return out


def render() -> str:
    """The whole SVG as text (the same on every machine)."""
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{WIDTH}' height='{HEIGHT}' "
             f"viewBox='0 0 {WIDTH} {HEIGHT}'>",
             "<title>posdata: the perft chip, its engines and threads, and the host</title>",
             "<defs><marker id='head' viewBox='0 0 10 10' refX='9' refY='5' markerWidth='7' "
             "markerHeight='7' orient='auto'><path d='M0,0 L10,5 L0,10 z' fill='#2f4a66'/>"
             "</marker></defs>",
             f"<rect width='{WIDTH}' height='{HEIGHT}' fill='white'/>"]
    for f in FRAMES:
        parts += frame(f)
    for b in BLOCKS:
        parts += block(b)
    for points, label in ARROWS:
        parts += arrow(points, label)
    parts.append(text(20, HEIGHT - 12, "the generator core (hdl/gen/core.py): prefetcher, walker "
                      "and merger; its moves go through the legality unit", 11, anchor="start",
                      colour="#4b5866"))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def paths() -> set[str]:
    """Every file the picture names (the test checks they exist)."""
    return {b.path for b in BLOCKS} | {f.path for f in FRAMES} | {"hdl/gen/core.py"}


def main(argv: list[str]) -> int:
    out = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "pipeline.svg")
    tmp = f"{out}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(render())
    os.replace(tmp, out)
    print(f"{out}: {len(BLOCKS)} blocks, {len(ARROWS)} arrows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
