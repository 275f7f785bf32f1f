"""posdata sim --vcd writes a GTKWave save file a person can read: every trace it names is in the
VCD, shown under a name without Amaranth's ``$N``, markers A and B at the clocks where start and
done rise (read from the VCD here, by a parser of its own), the view zoomed to span them, the
walker's two contexts in groups of their own, and no group called ``view``."""

import contextlib
import io
import math
import re
import shutil
import subprocess

import pytest

from posdata.engine.rules.positions import BY_NAME
from posdata.sim.cli import main


def vcd_facts(path):
    """GTKWave's names of the VCD's variables, and when bench.top.start and done first rise."""
    names, scope, ids, rises, time = set(), [], {}, {}, 0
    with open(path) as f:
        for line in f:
            t = line.split()
            if t and t[0] == "$scope":
                scope.append(t[2])
            elif t and t[0] == "$upscope":
                scope.pop()
            elif t and t[0] == "$var":
                width = int(t[2])
                names.add(".".join(scope + [t[4]]) + (f"[{width - 1}:0]" if width > 1 else ""))
                if scope == ["bench", "top"] and t[4] in ("start", "done"):
                    ids[t[3]] = t[4]
            elif line.startswith("#"):
                time = int(line[1:])
            elif line[:1] == "1" and line[1:].strip() in ids:
                rises.setdefault(ids[line[1:].strip()], time)
    return names, rises


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    vcd = tmp_path_factory.mktemp("wave") / "k.vcd"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["sim", "--fen", BY_NAME["kiwipete"].fen, "--vcd", str(vcd), "--json"]) == 0
    return vcd, vcd.with_suffix(".gtkw")


def test_kiwipete_save_file(saved):
    vcd, gtkw = saved
    lines = gtkw.read_text().splitlines()
    names, rises = vcd_facts(vcd)
    traces = [re.fullmatch(r"\+\{([^}]*)\} (\S+)", line) for line in lines if line[0] == "+"]
    assert traces and all(traces)
    for alias, name in (m.groups() for m in traces):
        assert name in names, name
        plain = re.sub(r"\[\d+:0\]$", "", name).replace("\\", "")
        assert "$" not in alias and plain.endswith("." + alias), (alias, name)
    shown = {m[1] for m in traces}
    assert {"wr_en", "start", "done", "busy", "cycles", "moves__valid"} <= shown
    assert not any(line == "-view" for line in lines)

    groups = [lines[i + 1][1:] for i, line in enumerate(lines) if line == "@800200"]
    for ring in ("ring_l", "ring_r"):
        title = next(g for g in groups if f"({ring})" in g)
        body = lines[lines.index(f"-{title}") + 1:lines.index(f"-{title}", lines.index(
            f"-{title}") + 1)]
        fields = [line for line in body if line.startswith("+")]
        assert len(fields) > 4 and all(f"{{{ring}." in f for f in fields), body

    start, done = rises["start"], rises["done"]
    assert done > start
    star = next(line for line in lines if line.startswith("*")).split()
    zoom, markers = float(star[0][1:]), [int(x) for x in star[1:]]
    assert markers[1:3] == [start, done] and markers[3:] == [-1] * 24
    left = int(next(line for line in lines if line.startswith("[timestart]")).split()[1])
    # GTKWave: 200 pixels span 2 ** -zoom time units; its wave pane is ~994 pixels wide here
    visible = 2 ** -zoom / 200 * 994
    assert left <= start and done <= left + visible <= left + 2 * (done - left)
    assert math.isfinite(zoom) and zoom < 0


GTKWAVE_QUERY = """puts "WINDOW [gtkwave::getWindowStartTime] [gtkwave::getWindowEndTime]"
puts "MARKERS [gtkwave::getNamedMarker A] [gtkwave::getNamedMarker B]"
gtkwave::/File/Quit
"""


@pytest.mark.skipif(not (shutil.which("gtkwave") and shutil.which("xvfb-run")),
                    reason="GTKWave or Xvfb not installed (apt install gtkwave xvfb xauth)")
def test_gtkwave_opens_on_the_generation(saved, tmp_path):
    """GTKWave itself (under Xvfb) opens the window over start..done, markers on them."""
    vcd, gtkw = saved
    _, rises = vcd_facts(vcd)
    script = tmp_path / "query.tcl"
    script.write_text(GTKWAVE_QUERY)
    out = subprocess.run(["xvfb-run", "-a", "gtkwave", "-S", str(script), str(gtkw)],
                         capture_output=True, text=True,
                         timeout=120).stdout  # a hang guard: GTKWave reads and quits in seconds
    window = next(line for line in out.splitlines() if line.startswith("WINDOW")).split()
    markers = next(line for line in out.splitlines() if line.startswith("MARKERS")).split()
    left, right = int(window[1]), int(window[2])
    assert [int(m) for m in markers[1:]] == [rises["start"], rises["done"]]
    assert left <= rises["start"] and rises["done"] <= right
    assert right - left < 2 * (rises["done"] - rises["start"]), "not zoomed to the generation"
