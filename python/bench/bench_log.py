"""Reading a record log of the market mix vs msgspec decoding the same records.

    pip install './python[bench]'      # msgspec
    python python/bench/bench_log.py [--n 1000000] [--repeat 5]

The records are python/examples/market_log.py's mix (35 % Trade, 60 % Quote,
5 % Status; record i a function of i). Cases, each the best of --repeat runs,
reported as records per second and ns per record:

* log (frozen slots): ``list(LogReader(data, [Trade, Quote, Status]))``
  over the compact log in memory, into market_log.py's
  ``@dataclass(frozen=True, slots=True)`` classes: the header, every
  block's CRC32C, the framing and every record decoded. A frozen record
  holding only numbers and strings can never be in a reference cycle: the
  compiled codec leaves it out of the cyclic GC, as msgspec does for its
  Structs;
* log (frozen slots), read_all(): ``LogReader(data, TYPES).read_all()``,
  the whole log in one list, read in C with no step per record in Python;
* log (slots): the same classes without ``frozen=True``: every record
  tracked by the collector, which walks the young instances between
  batches (and read_all(), which reads them in one walk);
* log (slots), collector paused: the same with ``gc.disable()`` around the
  read (its young collection, timed after, still walks every record);
* log (slots), untracked: ``LogReader(..., untracked=True)``: mutable
  records whose fields hold no container left out of the collector (an
  opt-in for a mutable dataclass: nothing re-tracks it if a container is
  stored in it later);
* log (plain): into plain ``@dataclass`` classes;
* log (pure Python): the same with the package's Python backend, on a slice
  of the records (it is ~35x slower);
* msgspec dataclass: ``msgspec.msgpack.Decoder(list[T]).decode`` of one
  msgpack array per type (the records grouped by type, so msgspec needs no
  framing or dispatch at all), into plain ``@dataclass`` classes (msgspec
  reads dataclasses from maps: field names are in the data);
* msgspec slots / frozen slots: the same grouped maps into the log cases'
  own classes, ``@dataclass(slots=True)`` and market_log.py's
  ``@dataclass(frozen=True, slots=True)``: msgspec into the very classes
  the log reads into;
* msgspec Struct: one msgpack array of all records in order as a tagged union
  of ``array_like`` ``msgspec.Struct`` types (its fastest form overall).

Only the decoding is timed (the inputs are made before), each case with a
``gc.collect(0)`` after it: the reader pauses the collector while it walks
and makes few objects it counts in between, so the young collection the
allocations owe runs after the read, at the next allocation; it is timed
with the read that caused it (msgspec's is timed the same way).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import gc
import io
import os
import platform
import sys
import time
from typing import Union

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))

try:
    import msgspec
except ImportError:  # pragma: no cover
    sys.exit("msgspec is not installed: pip install './python[bench]' (or pip install msgspec)")

import bin_serializer
from bin_serializer.log import LogReader, LogWriter
from bin_serializer.types import char, i64, u32, u64
from market_log import TYPES, Quote, Status, Trade, record


@dataclasses.dataclass
class PTrade:
    ts: u64
    px: i64
    qty: u32
    side: char


@dataclasses.dataclass
class PQuote:
    ts: u64
    bid: i64
    ask: i64
    bsz: u32
    asz: u32


@dataclasses.dataclass
class PStatus:
    ts: u64
    venue: str
    text: str


@dataclasses.dataclass(slots=True)
class MTrade:
    ts: u64
    px: i64
    qty: u32
    side: char


@dataclasses.dataclass(slots=True)
class MQuote:
    ts: u64
    bid: i64
    ask: i64
    bsz: u32
    asz: u32


@dataclasses.dataclass(slots=True)
class MStatus:
    ts: u64
    venue: str
    text: str


MUTABLE = [MTrade, MQuote, MStatus]


class STrade(msgspec.Struct, array_like=True, tag=0):
    ts: int
    px: int
    qty: int
    side: int


class SQuote(msgspec.Struct, array_like=True, tag=1):
    ts: int
    bid: int
    ask: int
    bsz: int
    asz: int


class SStatus(msgspec.Struct, array_like=True, tag=2):
    ts: int
    venue: str
    text: str


def best(fn, repeat: int) -> float:
    """The best time of fn() and the young collection after it: a read that
    leaves the collector's allocation count high (its walks pause the
    collector; few objects the collector counts are made between them) has
    that collection run by whatever allocates next, so it is timed here, for
    every case alike."""
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        gc.collect(0)
        times.append(time.perf_counter() - t0)
        del out
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    n = args.n
    recs = [record(i) for i in range(n)]
    f = io.BytesIO()
    with LogWriter(f, TYPES) as w:
        for r in recs:
            w.write(r)
    data = f.getvalue()
    # msgspec inputs: the same field values
    plain = {Trade: PTrade, Quote: PQuote, Status: PStatus}
    groups: dict = {PTrade: [], PQuote: [], PStatus: []}
    for r in recs:
        cls = plain[type(r)]
        groups[cls].append({fld.name: getattr(r, fld.name) for fld in dataclasses.fields(cls)})
    enc = msgspec.msgpack.Encoder()
    grouped = [(msgspec.msgpack.Decoder(list[cls]), enc.encode(rows)) for cls, rows in groups.items()]
    grouped_slots = [(msgspec.msgpack.Decoder(list[cls]), b) for cls, (_, b) in zip(MUTABLE, grouped)]
    grouped_frozen = [(msgspec.msgpack.Decoder(list[cls]), b) for cls, (_, b) in zip(TYPES, grouped)]
    struct_of = {Trade: STrade, Quote: SQuote, Status: SStatus}
    structs = enc.encode([struct_of[type(r)](*[getattr(r, s) for s in r.__slots__]) for r in recs])
    sdec = msgspec.msgpack.Decoder(list[Union[STrade, SQuote, SStatus]])

    # check: every case decodes the same values
    got = list(LogReader(data, TYPES))
    assert got == recs and len(got) == n
    assert [dataclasses.astuple(x) for x in LogReader(data, MUTABLE)] == [dataclasses.astuple(r) for r in recs]
    assert sum(len(d.decode(b)) for d, b in grouped) == n
    assert collections.Counter(x for d, b in grouped_frozen for x in d.decode(b)) == collections.Counter(recs)
    assert collections.Counter(
        (type(x).__name__[1:], dataclasses.astuple(x)) for d, b in grouped_slots for x in d.decode(b)
    ) == collections.Counter((type(r).__name__, dataclasses.astuple(r)) for r in recs)
    assert len(sdec.decode(structs)) == n

    results = []

    def log_frozen():
        return list(LogReader(data, TYPES))

    def log_frozen_read_all():
        return LogReader(data, TYPES).read_all()

    def log_slots():
        return list(LogReader(data, MUTABLE))

    def log_slots_no_gc():
        gc.disable()
        try:
            return list(LogReader(data, MUTABLE))
        finally:
            gc.enable()

    def log_slots_untracked():
        return list(LogReader(data, MUTABLE, untracked=True))

    def log_slots_read_all():
        return LogReader(data, MUTABLE).read_all()

    def log_plain():
        return list(LogReader(data, [PTrade, PQuote, PStatus]))

    def ms_dataclass():
        return [d.decode(b) for d, b in grouped]

    def ms_slots():
        return [d.decode(b) for d, b in grouped_slots]

    def ms_frozen():
        return [d.decode(b) for d, b in grouped_frozen]

    def ms_struct():
        return sdec.decode(structs)

    backend = bin_serializer.backend()
    cases = [
        ("frozen", f"log, dataclass(frozen=True, slots=True), backend {backend}", log_frozen),
        ("frozen_all", f"log, dataclass(frozen=True, slots=True), backend {backend}, read_all()",
         log_frozen_read_all),
        ("ms_struct", "msgspec msgpack -> array_like Struct union", ms_struct),
        ("slots", f"log, dataclass(slots=True), backend {backend}", log_slots),
        ("slots_no_gc", f"log, dataclass(slots=True), backend {backend}, gc disabled", log_slots_no_gc),
        ("slots_untracked", f"log, dataclass(slots=True), backend {backend}, untracked=True", log_slots_untracked),
        ("slots_all", f"log, dataclass(slots=True), backend {backend}, read_all()", log_slots_read_all),
        ("plain", f"log, dataclass, backend {backend}", log_plain),
        ("ms_dataclass", "msgspec msgpack -> dataclass (grouped by type)", ms_dataclass),
        ("ms_slots", "msgspec msgpack -> dataclass(slots=True) (grouped by type)", ms_slots),
        ("ms_frozen", "msgspec msgpack -> dataclass(frozen=True, slots=True) (grouped by type)", ms_frozen),
    ]
    per: dict = {}
    for key, name, fn in cases:
        t = best(fn, args.repeat)
        per[key] = t / n
        results.append((name, t, n))
    if backend == "c":
        small = n // 50
        f2 = io.BytesIO()
        with LogWriter(f2, TYPES) as w:
            for r in recs[:small]:
                w.write(r)
        d2 = f2.getvalue()
        prev = bin_serializer.set_backend("python")
        try:
            results.append(("log, dataclass(frozen=True, slots=True), backend python",
                            best(lambda: list(LogReader(d2, TYPES)), max(1, args.repeat // 2)), small))
        finally:
            bin_serializer.set_backend(prev)
    print(f"# record log read, market mix, {n} records, {len(data)} bytes "
          f"({len(data) / n:.2f} bytes/record); Python {platform.python_version()}, msgspec {msgspec.__version__}, "
          f"{platform.machine()}")
    print()
    print("| case | M records/s | ns/record |")
    print("|---|---:|---:|")
    for name, t, count in results:
        print(f"| {name} | {count / t / 1e6:.2f} | {t / count * 1e9:.1f} |")
    print()
    ms = per["ms_struct"]
    print(f"time / msgspec Struct: frozen slots {per['frozen'] / ms:.2f}x, read_all() {per['frozen_all'] / ms:.2f}x; "
          f"mutable slots {per['slots'] / ms:.2f}x, untracked=True {per['slots_untracked'] / ms:.2f}x")
    print(f"time / msgspec dataclass: plain dataclass {per['plain'] / per['ms_dataclass']:.2f}x")
    print(f"time / msgspec into the same classes: frozen slots {per['frozen'] / per['ms_frozen']:.2f}x, "
          f"mutable slots {per['slots'] / per['ms_slots']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
