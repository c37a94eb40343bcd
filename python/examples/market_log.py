"""The Python half of examples/market_log.cpp: a record log of market data.

    example_market_log PATH N                          # C++ writes N records (compact)
    python python/examples/market_log.py PATH          # counts per type, bytes per record
    python python/examples/market_log.py --write PATH N   # writes the same log from Python

The mix (record i of N is a function of i alone, the C++ example makes the
same records): 35 % Trade, 60 % Quote, 5 % Status, the log's types in the
order Trade, Quote, Status. With k = i % 20: k < 7 a Trade, k < 19 a Quote,
k == 19 a Status. Exit status 0 when the log ends cleanly (and, for a log
of N records, every record is the one `record(i)` makes).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Union

from bin_serializer.log import LogReader, LogWriter
from bin_serializer.types import char, i64, u32, u64


@dataclass(frozen=True, slots=True)
class Trade:
    ts: u64
    px: i64
    qty: u32
    side: char  # ord("B") or ord("S")


@dataclass(frozen=True, slots=True)
class Quote:
    ts: u64
    bid: i64
    ask: i64
    bsz: u32
    asz: u32


@dataclass(frozen=True, slots=True)
class Status:
    ts: u64
    venue: str
    text: str


TYPES = [Trade, Quote, Status]
T0 = 1_700_000_000_000_000_000


def record(i: int) -> Union[Trade, Quote, Status]:
    """Record i of the mix."""
    k = i % 20
    ts = T0 + i * 1000
    if k < 7:
        return Trade(ts, 100_000 + (i * 7919) % 2000 - 1000, 1 + (i * 31) % 500, ord("B") if i % 2 == 0 else ord("S"))
    if k < 19:
        return Quote(ts, 100_000 - (i % 50), 100_000 + 1 + (i % 50), 1 + (i * 13) % 1000, 1 + (i * 17) % 1000)
    return Status(ts, "XNAS", "halt" if (i // 20) % 2 == 0 else "resume")


def write(path: str, n: int, format: str = "compact") -> None:
    with LogWriter(path, TYPES, format=format) as w:
        for i in range(n):
            w.write(record(i))


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", nargs="?", help="the log to read")
    ap.add_argument("--write", nargs=2, metavar=("PATH", "N"), help="write N records of the mix to PATH")
    ap.add_argument("--format", default="compact", choices=["compact", "portable", "native"])
    args = ap.parse_args(argv)
    if args.write:
        path, n = args.write[0], int(args.write[1])
        write(path, n, args.format)
        print(f"wrote {n} records to {path} ({os.path.getsize(path)} bytes)")
        if args.path is None:
            return 0
    if args.path is None:
        ap.error("give the log to read, or --write PATH N")
    counts: Counter = Counter()
    n = 0
    mismatch = None
    with LogReader(args.path, TYPES) as reader:
        for n, rec in enumerate(reader, 1):
            counts[type(rec).__name__] += 1
            if mismatch is None and rec != record(n - 1):
                mismatch = n - 1
        size = os.path.getsize(args.path)
        for cls in TYPES:
            print(f"{cls.__name__:6} {counts[cls.__name__]:>10}")
        header = reader.header.data_offset
        print(f"{'total':6} {n:>10}  {size} bytes, header {header} bytes, "
              f"{(size - header) / max(n, 1):.2f} bytes per record (blocks, after the header)")
        print(f"end: {reader.end} at offset {reader.end_offset}")
        if mismatch is not None:
            print(f"record {mismatch} is not record({mismatch}) of the mix", file=sys.stderr)
        return 0 if reader.end == "clean" and mismatch is None else 1


if __name__ == "__main__":
    sys.exit(main())
