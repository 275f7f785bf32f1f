"""Amaranth 0.5 gateware of the posdata move generator."""

if __name__ != "posdata.hdl":
    # From the repository root this folder is also importable as `hdl`: a second copy of every
    # class. The product's one namespace is posdata.*; refuse the other name outright.
    raise ImportError(f"import posdata.hdl, not {__name__} (pip install -e . first)")
