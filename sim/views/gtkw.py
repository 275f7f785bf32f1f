"""A GTKWave save file (``.gtkw``) a person can read at once, written after the run from the VCD
itself: opened zoomed to the generation (from the clock before ``start`` to the clock after
``done``) with marker A at start and B at done, the traced signals under their own names
(Amaranth's VCD also holds ``wr_en$33``-style duplicates of the ports: the alias shows
``wr_en``), and named groups (the walker's two contexts each in its own).

Why not Amaranth's own save file: it sets no zoom (GTKWave opens at 0-2 fs of a
microsecond-long trace), names the traces by their ``$N`` duplicates and shows each data View
as a group called ``view``.
"""

import math

#: GTKWave shows 200 pixels per frame and a frame spans zoombase ** -zoom time units, zoombase
#: 2 by default (gtkwave's calczoom); the wave pane is what the window leaves of its width.
PIXELS_PER_FRAME, ZOOM_BASE = 200, 2.0
WINDOW = (1600, 900)
SIGNALS_WIDTH = 340
WAVE_PIXELS = 950  # of the 1600: measured ~994 with GTKWave 3.3.118 (Xvfb), a little kept spare

FLAG_HEX, FLAG_BIN, FLAG_DEC = "@22", "@28", "@24"
GROUP_OPEN, GROUP_END, COMMENT = "@800200", "@1000200", "@200"


def read_vcd(path: str, watch: tuple = ()) -> tuple[dict, dict]:
    """(name -> (GTKWave's name for it, width), watched name -> times it rose to 1). A name is
    the dotted scope path and the variable with VCD escapes dropped (``bench.top.core.walker.
    ring_l.active``); GTKWave's keeps the escape and adds ``[msb:0]`` to vectors."""
    names, ids, scope = {}, {}, []
    rises = {name: [] for name in watch}
    with open(path, encoding="ascii") as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            if t[0] == "$enddefinitions":
                break
            if t[0] == "$scope":
                scope.append(t[2])
            elif t[0] == "$upscope":
                scope.pop()
            elif t[0] == "$var":
                width, ident, raw = int(t[2]), t[3], t[4]
                name = ".".join(scope + [raw.lstrip("\\")])
                shown = ".".join(scope + [raw]) + (f"[{width - 1}:0]" if width > 1 else "")
                names.setdefault(name, (shown, width))
                if name in rises:
                    ids[ident] = name
        time = 0
        for line in f:
            if line.startswith("#"):
                time = int(line[1:])
            elif line[:1] == "1" and line[1:].strip() in ids:
                rises[ids[line[1:].strip()]].append(time)
    return names, rises


def resolve(names: dict, name: str) -> tuple[str, int]:
    """GTKWave's name and the width of ``name``, or of its ``name$N`` duplicate."""
    if name in names:
        return names[name]
    for other, found in names.items():
        base, _, suffix = other.partition("$")
        if base == name and suffix.isdigit():
            return found
    raise KeyError(f"{name} is not in the VCD")


def write_gtkw(vcd: str, gtkw: str, groups: list, start: str, done: str, period: int,
               scope: str = "bench.top") -> None:
    """``groups``: (title, module, names): the signals ``scope.module.name`` shown as
    ``name``; a name ``view.*`` stands for every field of the View ``view`` (``ring_l.active``,
    ...). ``start`` and ``done``: the signals whose first rises (done: the first after start)
    bound the view; ``period``: the clock in the VCD's time units."""
    names, rises = read_vcd(vcd, (f"{scope}.{start}", f"{scope}.{done}"))
    starts = rises[f"{scope}.{start}"]
    t_start = starts[0] if starts else 0
    t_done = next((t for t in rises[f"{scope}.{done}"] if t > t_start), t_start + period)
    left = max(0, t_start - 2 * period)
    span = t_done + 2 * period - left
    zoom = -math.log(PIXELS_PER_FRAME * span / WAVE_PIXELS, ZOOM_BASE)
    markers = [t_start, t_done] + [-1] * 24  # A: start, B: done
    lines = ["[*] posdata: one generation; marker A at start, B at done (sim/views/gtkw.py)",
             f'[dumpfile] "{vcd}"', f"[timestart] {left}", f"[size] {WINDOW[0]} {WINDOW[1]}",
             f"[signals_width] {SIGNALS_WIDTH}", "[sst_expanded] 0",
             f"*{zoom:.6f} {t_start} " + " ".join(str(m) for m in markers),
             COMMENT, f"-A: start ({t_start}), B: done ({t_done}), one clock = {period}"]
    for title, module, signals in groups:
        base = ".".join(p for p in (scope, module) if p) + "."
        lines += [GROUP_OPEN, f"-{title}"]
        for signal in signals:
            if signal.endswith(".*"):  # a View: its fields, in the VCD's order
                view = base + signal[:-1]
                aliases = [n[len(base):] for n in names if n.startswith(view)]
            else:
                aliases = [signal]
            for alias in aliases:
                shown, width = resolve(names, base + alias)
                flag = FLAG_BIN if width == 1 else FLAG_DEC if alias == "cycles" else FLAG_HEX
                lines += [flag, f"+{{{alias}}} {shown}"]
        lines += [GROUP_END, f"-{title}"]
    with open(gtkw, "w", encoding="ascii") as f:
        f.write("\n".join(lines) + "\n")
