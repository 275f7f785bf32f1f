"""Write the table of what runs each variant into docs/variants.md, between its markers, from
the one declaration (engine.rules.capabilities, rendered by sim/cli/variants_table.py): `make docs`
runs it; tests/test_variant_docs.py fails while the two differ.

Usage: python docs/variants_table.py [DOC]   (default: docs/variants.md beside this script)
"""

import os
import sys

from posdata.sim.cli.variants_table import markdown, replace_block


def main(argv: list[str]) -> int:
    doc = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "variants.md")
    with open(doc) as f:
        text = replace_block(f.read(), markdown())
    tmp = f"{doc}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, doc)
    print(f"{doc}: the capability table written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
