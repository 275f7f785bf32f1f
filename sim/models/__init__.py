"""Compiled simulation models: CXXRTL and Verilator builds of the gateware, their C entry points
and the on-disk cache, the Verilog export and the native tools they need."""
