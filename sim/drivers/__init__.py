"""What runs the gateware, behind one interface per design: the generator and the perft chip in
Amaranth's simulator, as compiled models, and on an FPGA board (real or simulated)."""
