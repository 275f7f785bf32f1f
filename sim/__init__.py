"""Drives the gateware: Amaranth's simulator, the compiled CXXRTL model, hardware-vs-software
comparison, and the ``posdata`` command line. Importing this package does not import amaranth;
subcommands that need the gateware import it when they run."""

if __name__ != "posdata.sim":
    # From the repository root this folder is also importable as `sim`: a second copy of every
    # class. The product's one namespace is posdata.*; refuse the other name outright.
    raise ImportError(f"import posdata.sim, not {__name__} (pip install -e . first)")
