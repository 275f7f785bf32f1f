"""The charts of docs/measurements.json (bench/charts.py, issue 40 item 6): each drawn when its
runs are there and linked from measurements.md (the README: the two that matter most), not drawn
nor linked otherwise; the same JSON gives the same bytes."""

import copy

from tests.scripts import BENCH, REPO, load_script

DOCS = REPO / "docs"


def modules():
    return load_script(BENCH / "report.py"), load_script(BENCH / "charts.py")


def test_the_charts_in_docs_are_those_of_the_json(tmp_path):
    report, charts = modules()
    runs = report.load(str(DOCS / "measurements.json"))["runs"]
    drawn = charts.draw(runs, str(tmp_path))
    assert drawn == charts.available(runs) and len(drawn) >= 3
    assert sorted(drawn) == sorted(p.name for p in (DOCS / charts.CHARTS).glob("*.svg"))
    first = {name: (tmp_path / charts.CHARTS / name).read_bytes() for name in drawn}
    assert all(data.startswith(b"<?xml") and b"<svg" in data for data in first.values())
    charts.draw(runs, str(tmp_path))
    assert first == {name: (tmp_path / charts.CHARTS / name).read_bytes() for name in drawn}
    markdown = (DOCS / "measurements.md").read_text()
    for name in drawn:
        assert f"({charts.CHARTS}/{name})" in markdown
    readme = (REPO / "README.md").read_text()
    assert [n for n in drawn if f"(docs/{charts.CHARTS}/{n})" in readme] == \
        [n for n in drawn if n in charts.README_CHARTS]


def test_a_chart_without_its_runs_is_neither_drawn_nor_linked(tmp_path):
    report, charts = modules()
    data = report.load(str(DOCS / "measurements.json"))
    assert "clocks-per-position.svg" in charts.available(data["runs"])
    del data["runs"]["search-chip"]
    assert "clocks-per-position.svg" not in charts.draw(data["runs"], str(tmp_path))
    assert "clocks-per-position.svg" not in report.markdown(data)


def test_a_match_is_drawn_with_its_interval(tmp_path):
    report, charts = modules()
    runs = copy.deepcopy(report.load(str(DOCS / "measurements.json"))["runs"])
    runs["play"] = {"command": "x", "commit": "c", "date": "d", "results": {
        "depth": 3, "match": {"wins": 50, "draws": 40, "losses": 110}}}
    assert "match.svg" in charts.draw(runs, str(tmp_path))
    svg = (tmp_path / charts.CHARTS / "match.svg").read_text()
    assert "+50 =40 -110" in svg and "200 games, depth 3" in svg
