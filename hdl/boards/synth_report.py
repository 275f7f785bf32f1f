"""The figures of a finished build: what the tools wrote (nextpnr's JSON report: Fmax per clock,
resources against the device; Yosys's ``stat -json``: cells after synthesis; Yosys's log: its
own run time) and the clock and UART settings the design chose for the board."""

import json
import re


def clock_timing(pnr: dict) -> dict:
    """Fmax of the generator's clock against its constraint."""
    # the generator's clock is the constrained one: the board's oscillator only feeds the PLL
    name, clock = max(pnr.get("fmax", {}).items(), key=lambda kv: kv[1].get("constraint", 0))
    return {"clock_net": name,
            "constraint_mhz": round(clock["constraint"], 3),
            "fmax_mhz": round(clock["achieved"], 2),
            "timing_met": clock["achieved"] >= clock["constraint"]}


def clocking(top) -> dict:
    """The PLL and UART settings of an elaborated ``BoardTop`` (or ``ICEBreakerTop``)."""
    s = top.settings
    if hasattr(s, "divq"):  # the iCE40's PLL (hdl.boards.ice40_pll)
        return {"pll": {"input_mhz": s.input_mhz, "output_mhz": round(s.output_mhz, 4),
                        "divr": s.divr, "divf": s.divf, "divq": s.divq,
                        "filter_range": s.filter_range, "vco_mhz": round(s.vco_mhz, 3)},
                "uart": {"baud": top.baud, "divisor": top.divisor,
                         "actual_baud": round(s.output_mhz * 1e6 / top.divisor)}}
    return {"pll": {"input_mhz": s.input_mhz, "output_mhz": round(s.output_mhz, 4),
                    "clki_div": s.clki_div, "clkfb_div": s.clkfb_div, "clkop_div": s.clkop_div,
                    "vco_mhz": round(s.vco_mhz, 3)},
            "uart": {"baud": top.baud, "divisor": top.divisor,
                     "actual_baud": round(s.output_mhz * 1e6 / top.divisor)}}


def utilization(pnr: dict, resources: dict[str, str]) -> dict:
    """Used and available per resource; ``resources`` maps a label to nextpnr's name."""
    out = {}
    for label, kind in resources.items():
        u = pnr.get("utilization", {}).get(kind, {})
        used, available = u.get("used", 0), u.get("available", 0)
        out[label] = {"used": used, "available": available,
                      "percent": round(100 * used / available, 1) if available else None}
    return out


def cell_utilization(stat: dict, pnr: dict, rows: dict[str, tuple[str, str]]) -> dict:
    """Yosys's cells of a type (a name prefix: ``SB_DFF`` counts every SB_DFF* flip-flop)
    against what nextpnr says the device has of the resource that holds them."""
    by_type = stat.get("design", {}).get("num_cells_by_type", {})
    out = {}
    for label, (prefix, kind) in rows.items():
        used = sum(n for cell, n in by_type.items() if cell.startswith(prefix))
        available = pnr.get("utilization", {}).get(kind, {}).get("available", 0)
        out[label] = {"used": used, "available": available,
                      "percent": round(100 * used / available, 1) if available else None}
    return out


def cell_counts(stat: dict, cells: tuple[str, ...]) -> dict:
    by_type = stat.get("design", {}).get("num_cells_by_type", {})
    return {cell: by_type.get(cell, 0) for cell in cells}


def yosys_seconds(log: str) -> float | None:
    """The wall time Yosys states at the end of its log (``End of script. ..., time: 11.79s``),
    if this version writes it."""
    found = re.search(r"End of script\..*?\btime: ([0-9.]+)s", log)
    return float(found[1]) if found else None


def read_json(products, filename: str) -> dict:
    return json.loads(products.get(filename, "t"))
