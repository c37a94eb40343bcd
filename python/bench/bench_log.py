"""Reading a record log of the market mix vs msgspec decoding the same records.

    pip install './python[bench]'      # msgspec
    python python/bench/bench_log.py [--n 1000000] [--repeat 5]

The records are python/examples/market_log.py's mix (35 % Trade, 60 % Quote,
5 % Status; record i a function of i). Cases, each the best of --repeat runs,
reported as records per second and ns per record:

* log (slots): ``list(LogReader(data, [Trade, Quote, Status]))`` over the
  compact log in memory, into ``@dataclass(slots=True)`` classes: the header,
  every block's CRC32C, the framing and every record decoded;
* log (plain): the same into plain ``@dataclass`` classes;
* log (slots), collector paused: the same with ``gc.disable()`` around the
  read: what the cyclic GC costs (it walks the young instances between
  batches; msgspec leaves a Struct whose fields hold no containers
  untracked, a dataclass instance is always tracked);
* log (slots), untracked: ``LogReader(..., untracked=True)``: records whose
  fields hold no container are left out of the collector, as msgspec does
  for its Structs (an opt-in for a dataclass: nothing re-tracks it if a
  container is stored in it later);
* log (slots), read_all(): ``LogReader(data, TYPES).read_all()``, the
  whole log in one list by one walk in C (no step per record in Python),
  tracked and untracked; the collector is paused during the walk, so the
  timing includes a ``gc.collect(0)`` after it (the walk of the new
  tracked records it would otherwise leave for later);
* log (pure Python): the same with the package's Python backend, on a slice
  of the records (it is ~50x slower);
* msgspec dataclass: ``msgspec.msgpack.Decoder(list[T]).decode`` of one
  msgpack array per type (the records grouped by type, so msgspec needs no
  framing or dispatch at all), into plain ``@dataclass`` classes (msgspec
  reads dataclasses from maps: field names are in the data);
* msgspec Struct: one msgpack array of all records in order as a tagged union
  of ``array_like`` ``msgspec.Struct`` types (its fastest form overall).

Only the decoding is timed (the inputs are made before).
"""

from __future__ import annotations

import argparse
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
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
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
    struct_of = {Trade: STrade, Quote: SQuote, Status: SStatus}
    structs = enc.encode([struct_of[type(r)](*[getattr(r, s) for s in r.__slots__]) for r in recs])
    sdec = msgspec.msgpack.Decoder(list[Union[STrade, SQuote, SStatus]])

    # check: every case decodes the same values
    got = list(LogReader(data, TYPES))
    assert got == recs and len(got) == n
    assert sum(len(d.decode(b)) for d, b in grouped) == n
    assert len(sdec.decode(structs)) == n

    results = []

    def log_slots():
        return list(LogReader(data, TYPES))

    def log_plain():
        return list(LogReader(data, [PTrade, PQuote, PStatus]))

    def log_slots_untracked():
        return list(LogReader(data, TYPES, untracked=True))

    # read_all() keeps the collector paused for the whole walk: the young
    # collection it would have run meanwhile is timed here, so that a
    # tracked result's one walk by the collector is not left outside
    def log_slots_read_all():
        out = LogReader(data, TYPES).read_all()
        gc.collect(0)
        return out

    def log_slots_untracked_read_all():
        out = LogReader(data, TYPES, untracked=True).read_all()
        gc.collect(0)
        return out

    def log_slots_no_gc():
        gc.disable()
        try:
            return list(LogReader(data, TYPES))
        finally:
            gc.enable()

    def ms_dataclass():
        return [d.decode(b) for d, b in grouped]

    def ms_struct():
        return sdec.decode(structs)

    backend = bin_serializer.backend()
    results.append((f"log, dataclass(slots=True), backend {backend}", best(log_slots, args.repeat), n))
    results.append((f"log, dataclass, backend {backend}", best(log_plain, args.repeat), n))
    results.append(("msgspec msgpack -> dataclass (grouped by type)", best(ms_dataclass, args.repeat), n))
    results.append(("msgspec msgpack -> array_like Struct union", best(ms_struct, args.repeat), n))
    results.append((f"log, dataclass(slots=True), backend {backend}, gc disabled",
                    best(log_slots_no_gc, args.repeat), n))
    results.append((f"log, dataclass(slots=True), backend {backend}, untracked=True",
                    best(log_slots_untracked, args.repeat), n))
    results.append((f"log, dataclass(slots=True), backend {backend}, read_all()",
                    best(log_slots_read_all, args.repeat), n))
    results.append((f"log, dataclass(slots=True), backend {backend}, untracked=True, read_all()",
                    best(log_slots_untracked_read_all, args.repeat), n))
    if backend == "c":
        small = n // 50
        f2 = io.BytesIO()
        with LogWriter(f2, TYPES) as w:
            for r in recs[:small]:
                w.write(r)
        d2 = f2.getvalue()
        prev = bin_serializer.set_backend("python")
        try:
            results.append(("log, dataclass(slots=True), backend python",
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
    def per(i):
        return results[i][1] / results[i][2]

    print()
    print(f"log (slots) / msgspec dataclass time: {per(0) / per(2):.2f}x")
    print(f"log (slots) / msgspec Struct time: {per(0) / per(3):.2f}x; "
          f"untracked=True / msgspec Struct: {per(5) / per(3):.2f}x; "
          f"untracked=True, read_all() / msgspec Struct: {per(7) / per(3):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
