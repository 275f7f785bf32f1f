"""Sizes of the generator's buffers, in one place. Plain Python (no amaranth): the gateware's
modules and the host code take them from here."""

CONTEXTS = 2       #: walk contexts taking turns in the walker's two-clock loop (hdl.gen.walker)
QUEUE_DEPTH = 2    #: prefetched start entries waiting for a walk context (hdl.gen.prefetch)
FIFO_DEPTH = 16    #: entries per walk context's FIFO in the merger (hdl.gen.merger)
ROOM_MARGIN = 2    #: a context's FIFO has "room" while its level < FIFO_DEPTH - ROOM_MARGIN
ORDER_DEPTH = 16   #: the merger's order FIFO: one entry per piece, and a side has at most 16
