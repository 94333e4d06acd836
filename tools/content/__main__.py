"""``python -m tools.content SOURCES OUTDIR``: write the shipped content set."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.content.build import convert, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.content",
                                     description="Convert the content sources to rule data.")
    parser.add_argument("sources", type=Path, help="the folder holding necrovox/ and gyrinx/")
    parser.add_argument("out", type=Path, help="the rule data set's directory to write")
    args = parser.parse_args(argv)
    converted = convert(args.sources)
    write(converted, args.out)
    for name, count in converted.counts.items():
        print(f"{name}: {count}")
    print(f"differences with Gyrinx: {len(converted.differences)}; "
          f"slips: {len(converted.report.slips)}; left out: {len(converted.report.skipped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
