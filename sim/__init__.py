"""Drives the gateware: Amaranth's simulator, the compiled CXXRTL model, hardware-vs-software
comparison, and the ``posdata`` command line. Importing this package does not import amaranth;
subcommands that need the gateware import it when they run."""
