"""What a killed board build leaves (``.BOARD.building-*``, tens of MB) goes at the next build:
build_place.start sweeps the building directories whose lock no process holds, and leaves those
of builds under way. Through build_place itself: no synthesis runs."""

import os
import subprocess
import sys

from posdata.hdl.boards import build_place
from tests.hang_guard import guarded

#: a build under way in another process, until it is killed: it prints its directory and waits
BUILD = ("import sys\n"
         "from posdata.hdl.boards import build_place\n"
         "work = build_place.start(sys.argv[1])\n"
         "open(work + '/posdata.json', 'w').write('half a netlist')\n"
         "print(work, flush=True)\n"
         "sys.stdin.read()\n")


def test_a_killed_builds_directory_goes_at_the_next_build(tmp_path):
    synth = tmp_path / "synth"
    (synth / "icebreaker.failed").mkdir(parents=True)  # a failed build's logs: kept
    (synth / ".notes.building-x").write_text("not a directory: kept")
    older = synth / ".ulx3s-85f.building-old"  # left by a posdata that took no lock
    older.mkdir()
    (older / "posdata.json").write_text("half a netlist")
    other = subprocess.Popen([sys.executable, "-c", BUILD, str(synth / "ulx3s-25f")],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        # the child starts Python and imports posdata: about a second on an idle machine
        running = guarded(other.stdout.readline, 60, "the build child's directory line").strip()
        assert os.path.isdir(running), running
        mine = build_place.start(str(synth / "icebreaker"))
        assert os.path.isdir(running)  # its builder lives: left alone
        assert not older.exists()
    finally:
        other.kill()  # SIGKILL: it cannot clean up
        guarded(other.wait, 60, "the killed build child")
    try:
        assert os.path.isdir(running)
        again = build_place.start(str(synth / "ulx3s-25f"))
        assert not os.path.exists(running)
        assert os.path.isdir(mine)  # this process's build under way: left alone
        build_place.abandon(again)
    finally:
        build_place.abandon(mine)
    assert sorted(os.listdir(synth)) == [".notes.building-x", "icebreaker.failed"]
    assert build_place._held == {}  # every lock given back


def test_a_finished_or_failed_build_gives_its_lock_back(tmp_path):
    final = tmp_path / "synth" / "icebreaker"
    work = build_place.start(str(final))
    build_place.install(work, str(final), {"board": "icebreaker"})
    assert build_place._held == {}
    work = build_place.start(str(final))
    assert build_place.keep_failed(work, str(final)) == str(final) + ".failed"
    assert build_place._held == {}
    assert sorted(os.listdir(final.parent)) == ["icebreaker", "icebreaker.failed"]
