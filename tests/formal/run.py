"""``make formal`` / ``make formal-full``: run the formal checks, two at a time (one per core),
and print each with its mode, depth and solver time; a failure names its counterexample VCD.

    python -m tests.formal.run [--full] [NAME ...]
"""

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from .checks import BY_NAME, CHECKS, FAST, run


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="every check, not only the fast set")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("names", nargs="*", help="only these checks")
    args = parser.parse_args(argv)
    checks = [BY_NAME[n] for n in args.names] if args.names else (CHECKS if args.full else FAST)
    start = time.monotonic()
    failed = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for check, result in zip(checks, pool.map(run, checks)):
            print(result.describe(), flush=True)
            if not result.passed:
                failed.append(check.name)
    print(f"{len(checks) - len(failed)}/{len(checks)} passed in {time.monotonic() - start:.0f} s"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
