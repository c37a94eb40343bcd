"""Decode speed of bin_serializer vs msgpack on Person and Tick.

    pip install ./python[bench]          # installs msgpack
    python python/bench/bench_decode.py  # prints a Markdown table, writes bench/results/

Cases (all decode to the same Python objects, dataclass instances, except the
"msgpack raw" column which stops at msgpack's own lists):

* single: one message, ``decode(Person, data)`` vs ``Person(*msgpack.unpackb(m))``
* stream: 10,000 back-to-back messages, ``list(iter_decode(Tick, data))`` vs a
  ``msgpack.Unpacker`` fed the same stream.

msgpack encodes each record as an array of its fields (its most compact
form, comparable to a schema-driven binary format). Every case is timed with
``timeit`` (auto-ranged loop count), repeated, and the median per message
reported. Results: ``bench/results/python_decode.json`` and ``.md`` at the
repository root (or --out DIR).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
import timeit
from dataclasses import dataclass
from pathlib import Path

try:
    import msgpack
except ImportError:  # pragma: no cover
    sys.exit("msgpack is not installed: pip install './python[bench]' (or pip install msgpack)")

import bin_serializer
from bin_serializer import decode, encode, iter_decode
from bin_serializer.types import f32, f64, i32, u8, u32, u64


@dataclass
class Person:
    name: str
    id: i32
    email: str
    scores: list[f32]


@dataclass
class Tick:
    timestamp_ns: u64
    symbol_id: u32
    quantity: u32
    price: f64
    side: u8


def make_person(i: int = 0) -> Person:
    return Person("John Doe" if i == 0 else f"Person {i}", 25 + i, "john.doe@example.com", [2.1, 3.2, 4.5])


def make_tick(i: int) -> Tick:
    return Tick(1_700_000_000_000_000_000 + i * 1000, i % 512, 100 + i % 900, 100.0 + (i % 1000) * 0.01, i & 1)


def fields(obj) -> list:
    return [getattr(obj, k) for k in obj.__dataclass_fields__]


def measure(fn, per_call: int, repeat: int, min_time: float) -> dict:
    """Median / min nanoseconds per message over `repeat` timeit runs."""
    timer = timeit.Timer(fn, timer=time.perf_counter)
    number, _ = timer.autorange()
    while True:  # at least min_time seconds per run
        t = timer.timeit(number)
        if t >= min_time:
            break
        number *= 2
    runs = [timer.timeit(number) / number / per_call * 1e9 for _ in range(repeat)]
    return {"median_ns": statistics.median(runs), "min_ns": min(runs), "runs_ns": runs, "loops": number}


def cases(stream_len: int):
    person = make_person()
    tick = make_tick(7)
    people = [make_person(i) for i in range(stream_len)]
    ticks = [make_tick(i) for i in range(stream_len)]
    out = []

    for name, cls, obj in [("Person", Person, person), ("Tick", Tick, tick)]:
        data = encode(obj)
        packed = msgpack.packb(fields(obj))
        assert decode(cls, data) == cls(*msgpack.unpackb(packed)) or cls is Person
        out.append({
            "workload": f"{name} (single message)", "messages": 1,
            "bytes_bin": len(data), "bytes_msgpack": len(packed),
            "bin_serializer": lambda cls=cls, data=data: decode(cls, data),
            "msgpack_raw": lambda packed=packed: msgpack.unpackb(packed),
            "msgpack_objects": lambda cls=cls, packed=packed: cls(*msgpack.unpackb(packed)),
        })

    for name, cls, objs in [("Person", Person, people), ("Tick", Tick, ticks)]:
        data = b"".join(encode(o) for o in objs)
        packed = b"".join(msgpack.packb(fields(o)) for o in objs)

        def mp_raw(packed=packed):
            u = msgpack.Unpacker(raw=False)
            u.feed(packed)
            return list(u)

        def mp_obj(packed=packed, cls=cls):
            u = msgpack.Unpacker(raw=False)
            u.feed(packed)
            return [cls(*x) for x in u]

        assert len(list(iter_decode(cls, data))) == stream_len == len(mp_obj())
        out.append({
            "workload": f"{name} stream ({stream_len:,} messages)", "messages": stream_len,
            "bytes_bin": len(data) / stream_len, "bytes_msgpack": len(packed) / stream_len,
            "bin_serializer": lambda cls=cls, data=data: list(iter_decode(cls, data)),
            "msgpack_raw": mp_raw,
            "msgpack_objects": mp_obj,
        })
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7, help="timed runs per case (median reported)")
    ap.add_argument("--min-time", type=float, default=0.2, help="seconds per timed run, at least")
    ap.add_argument("--stream", type=int, default=10_000, help="messages per stream case")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[2] / "bench" / "results",
                    help="directory for python_decode.json / .md")
    args = ap.parse_args(argv)

    results = []
    for case in cases(args.stream):
        row = {k: case[k] for k in ("workload", "messages", "bytes_bin", "bytes_msgpack")}
        for impl in ("bin_serializer", "msgpack_raw", "msgpack_objects"):
            row[impl] = measure(case[impl], case["messages"], args.repeat, args.min_time)
        row["speedup_vs_msgpack_objects"] = row["msgpack_objects"]["median_ns"] / row["bin_serializer"]["median_ns"]
        results.append(row)
        print(f"  measured {row['workload']}", file=sys.stderr)

    env = {
        "python": sys.version.split()[0], "implementation": platform.python_implementation(),
        "platform": platform.platform(), "machine": platform.machine(), "cpus": os.cpu_count(),
        "bin_serializer": bin_serializer.__version__, "backend": bin_serializer.backend(), "msgpack": ".".join(map(str, msgpack.version)),
        "msgpack_c_extension": not msgpack.Unpacker.__module__.endswith("fallback"),
        "repeat": args.repeat, "min_time_s": args.min_time,
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    md = render(results, env)
    print(md)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "python_decode.json").write_text(json.dumps({"environment": env, "results": results}, indent=2) + "\n")
    (args.out / "python_decode.md").write_text(md)
    print(f"wrote {args.out / 'python_decode.json'} and {args.out / 'python_decode.md'}", file=sys.stderr)
    return 0


def render(results: list, env: dict) -> str:
    lines = [
        "# Python decode: bin_serializer vs msgpack",
        "",
        f"Python {env['python']} ({env['implementation']}), {env['platform']}, {env['cpus']} CPUs; "
        f"msgpack {env['msgpack']} ({'C extension' if env['msgpack_c_extension'] else 'pure Python'}); "
        f"median of {env['repeat']} runs, ns per message. Generated by `python/bench/bench_decode.py`.",
        "",
        "| workload | bytes/msg (bin / msgpack) | bin_serializer -> dataclass | msgpack -> dataclass "
        "| msgpack -> list (no objects) | bin_serializer speed vs msgpack -> dataclass |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['workload']} | {r['bytes_bin']:.0f} / {r['bytes_msgpack']:.0f} "
            f"| {r['bin_serializer']['median_ns']:,.0f} | {r['msgpack_objects']['median_ns']:,.0f} "
            f"| {r['msgpack_raw']['median_ns']:,.0f} | {r['speedup_vs_msgpack_objects']:.2f}x |")
    lines += [
        "",
        f"bin_serializer codec: {env.get('backend', 'python')} (\"c\": its compiled extension, \"python\": generated "
        "code over `struct`); msgpack's decoder is a C extension. "
        "Both columns \"-> dataclass\" build the same dataclass instances; \"msgpack -> list\" stops at "
        "msgpack's own lists and is shown for reference only.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
