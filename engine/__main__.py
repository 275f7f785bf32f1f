"""``python -m posdata.engine``: the UCI engine with the software generator, without the CLI
(and so without amaranth)."""

import sys

from .uci.protocol import main

sys.exit(main())
