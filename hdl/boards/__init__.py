"""FPGA boards and synthesis: the PLLs, the board tops (ECP5, iCE40), the LEDs, and the build
flow with its report."""
