"""``python -m engine``: the UCI engine, without the CLI (and so without amaranth)."""

import sys

from .uci import main

sys.exit(main())
