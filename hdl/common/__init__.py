"""What every part of the gateware shares: the layouts of engine's encodings as Amaranth
shapes and small helpers (a priority encoder, a FIFO whose head is a register)."""
