"""Encode and decode speed of bin_serializer against msgpack and msgspec.

    pip install './python[bench]'            # msgpack, msgspec, numpy
    python python/bench/bench_python.py      # prints a Markdown table, writes python_speed.{json,md}

Workloads (python/tests/schemas.py, the same records as workloads/ in C++):
Person, Car, and a batch of 256 Ticks (one message, list[Tick]). Every
implementation starts from / ends at typed Python objects:

* bin_serializer: the dataclasses, ``encode(obj)`` / ``decode(cls, data)``
  (compiled codec when built; ``--backend python`` for the pure-Python one),
  and the same classes declared ``@dataclass(slots=True)``;
* msgpack list: ``packb`` of the fields as (nested) lists, ``unpackb`` and
  building the same dataclasses;
* msgpack dict: the same with field-name maps;
* msgspec: ``msgspec.msgpack`` with equivalent ``msgspec.Struct`` types
  (``array_like=True``, its fastest form), which build no dataclass.

Each cell is timed with ``timeit``: auto-ranged loop count, then ``--repeat``
runs; the table shows the best run (the least disturbed by other processes on
a shared machine) in ns per operation, the JSON keeps every run.
"""

from __future__ import annotations

import argparse
import dataclasses
import typing
import json
import os
import platform
import sys
import time
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

try:
    import msgpack
    import msgspec
except ImportError:  # pragma: no cover
    sys.exit("msgpack / msgspec are not installed: pip install './python[bench]'")

import bin_serializer  # noqa: E402
from bin_serializer import api, decode, encode  # noqa: E402
from schemas import (Acceleration, Booster, BoostType, Car, Engine, FuelFigure, Model,  # noqa: E402
                     PerformanceFigure, Person, Tick, make_car, make_person, make_tick)

BATCH = 256

# ---- msgspec Structs equivalent to the dataclasses ----------------------------------------------


class MPerson(msgspec.Struct, array_like=True):
    name: str
    id: int
    email: str
    scores: list[float]


class MTick(msgspec.Struct, array_like=True):
    timestamp_ns: int
    symbol_id: int
    quantity: int
    price: float
    side: int


class MBooster(msgspec.Struct, array_like=True):
    boost_type: BoostType
    horse_power: int


class MEngine(msgspec.Struct, array_like=True):
    capacity: int
    num_cylinders: int
    max_rpm: int
    manufacturer_code: list[int]
    booster: MBooster


class MFuelFigure(msgspec.Struct, array_like=True):
    speed: int
    mpg: float
    usage_description: str


class MAcceleration(msgspec.Struct, array_like=True):
    mph: int
    seconds: float


class MPerformanceFigure(msgspec.Struct, array_like=True):
    octane_rating: int
    acceleration: list[MAcceleration]


class MCar(msgspec.Struct, array_like=True):
    timestamp: int
    serial_number: int
    model_year: int
    available: bool
    code: Model
    some_numbers: list[int]
    vehicle_code: list[int]
    extras: int
    engine: MEngine
    fuel_figures: list[MFuelFigure]
    performance_figures: list[MPerformanceFigure]
    manufacturer: str
    model: str
    activation_code: str


def to_msgspec(obj):
    """The msgspec Struct holding the same values as a dataclass (or list of them)."""
    if isinstance(obj, list):
        return [to_msgspec(x) for x in obj]
    names = getattr(obj, "__dataclass_fields__", None)
    if names is None:
        return obj
    cls = {Person: MPerson, Tick: MTick, Booster: MBooster, Engine: MEngine, FuelFigure: MFuelFigure,
           Acceleration: MAcceleration, PerformanceFigure: MPerformanceFigure, Car: MCar}[type(obj)]
    return cls(*[to_msgspec(getattr(obj, n)) for n in names])


# ---- the same schemas as __slots__ dataclasses ----------------------------------------------------

SLOTS: dict = {}


def _slots_hint(h):
    if h in SLOTS:
        return SLOTS[h]
    if typing.get_origin(h) is list:
        return list[_slots_hint(typing.get_args(h)[0])]
    return h


for _cls in (Booster, Engine, FuelFigure, Acceleration, PerformanceFigure, Car, Person, Tick):
    _hints = typing.get_type_hints(_cls, include_extras=True)
    SLOTS[_cls] = dataclasses.make_dataclass(
        _cls.__name__ + "S", [(f.name, _slots_hint(_hints[f.name])) for f in dataclasses.fields(_cls)], slots=True)


def to_slots(obj):
    if isinstance(obj, list):
        return [to_slots(x) for x in obj]
    names = getattr(obj, "__dataclass_fields__", None)
    if names is None:
        return obj
    return SLOTS[type(obj)](*[to_slots(getattr(obj, n)) for n in names])


# ---- msgpack: hand-written converters (the fastest Python can do) -------------------------------


def person_list(p):
    return [p.name, p.id, p.email, p.scores]


def person_from_list(x):
    return Person(*x)


def person_dict(p):
    return {"name": p.name, "id": p.id, "email": p.email, "scores": p.scores}


def person_from_dict(d):
    return Person(**d)


def tick_list(t):
    return [t.timestamp_ns, t.symbol_id, t.quantity, t.price, t.side]


def tick_dict(t):
    return {"timestamp_ns": t.timestamp_ns, "symbol_id": t.symbol_id, "quantity": t.quantity, "price": t.price,
            "side": t.side}


def car_list(c):
    e = c.engine
    return [c.timestamp, c.serial_number, c.model_year, c.available, int(c.code), c.some_numbers, c.vehicle_code,
            c.extras, [e.capacity, e.num_cylinders, e.max_rpm, e.manufacturer_code,
                       [int(e.booster.boost_type), e.booster.horse_power]],
            [[f.speed, f.mpg, f.usage_description] for f in c.fuel_figures],
            [[p.octane_rating, [[a.mph, a.seconds] for a in p.acceleration]] for p in c.performance_figures],
            c.manufacturer, c.model, c.activation_code]


def car_from_list(x):
    e = x[8]
    return Car(x[0], x[1], x[2], x[3], Model(x[4]), x[5], x[6], x[7],
               Engine(e[0], e[1], e[2], e[3], Booster(BoostType(e[4][0]), e[4][1])),
               [FuelFigure(*f) for f in x[9]],
               [PerformanceFigure(p[0], [Acceleration(*a) for a in p[1]]) for p in x[10]],
               x[11], x[12], x[13])


def car_dict(c):
    e = c.engine
    return {"timestamp": c.timestamp, "serial_number": c.serial_number, "model_year": c.model_year,
            "available": c.available, "code": int(c.code), "some_numbers": c.some_numbers,
            "vehicle_code": c.vehicle_code, "extras": c.extras,
            "engine": {"capacity": e.capacity, "num_cylinders": e.num_cylinders, "max_rpm": e.max_rpm,
                       "manufacturer_code": e.manufacturer_code,
                       "booster": {"boost_type": int(e.booster.boost_type),
                                   "horse_power": e.booster.horse_power}},
            "fuel_figures": [{"speed": f.speed, "mpg": f.mpg, "usage_description": f.usage_description}
                             for f in c.fuel_figures],
            "performance_figures": [{"octane_rating": p.octane_rating,
                                     "acceleration": [{"mph": a.mph, "seconds": a.seconds}
                                                      for a in p.acceleration]}
                                    for p in c.performance_figures],
            "manufacturer": c.manufacturer, "model": c.model, "activation_code": c.activation_code}


def car_from_dict(d):
    e = d["engine"]
    b = e["booster"]
    return Car(d["timestamp"], d["serial_number"], d["model_year"], d["available"], Model(d["code"]),
               d["some_numbers"], d["vehicle_code"], d["extras"],
               Engine(e["capacity"], e["num_cylinders"], e["max_rpm"], e["manufacturer_code"],
                      Booster(BoostType(b["boost_type"]), b["horse_power"])),
               [FuelFigure(**f) for f in d["fuel_figures"]],
               [PerformanceFigure(p["octane_rating"], [Acceleration(**a) for a in p["acceleration"]])
                for p in d["performance_figures"]],
               d["manufacturer"], d["model"], d["activation_code"])


# ---- cases -----------------------------------------------------------------------------------------


def cases(with_numpy: bool) -> list:
    """(workload, op, {implementation: fn}) in table order."""
    person, car = make_person(), make_car()
    ticks = [make_tick(i) for i in range(BATCH)]
    packb, unpackb = msgpack.packb, msgpack.unpackb
    out = []
    specs = [
        ("Person", Person, person, person_list, person_from_list, person_dict, person_from_dict),
        ("Car", Car, car, car_list, car_from_list, car_dict, car_from_dict),
    ]
    for name, cls, obj, to_l, from_l, to_d, from_d in specs:
        data = encode(obj)
        assert encode(decode(cls, data)) == data  # (f32 fields round, so compare bytes)
        pl, pd = packb(to_l(obj)), packb(to_d(obj))
        assert from_l(unpackb(pl)) == from_d(unpackb(pd))
        m = to_msgspec(obj)
        menc, mdec = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(type(m))
        mdata = menc.encode(m)
        assert mdec.decode(mdata) == m
        so, scls = to_slots(obj), SLOTS[cls]
        assert encode(so) == data
        out.append((name, "encode", {
            "bin_serializer": lambda obj=obj: encode(obj),
            "bin_serializer slots": lambda so=so: encode(so),
            "msgpack list": lambda obj=obj, f=to_l: packb(f(obj)),
            "msgpack dict": lambda obj=obj, f=to_d: packb(f(obj)),
            "msgspec Struct": lambda m=m, e=menc.encode: e(m),
        }))
        out.append((name, "decode", {
            "bin_serializer": lambda cls=cls, data=data: decode(cls, data),
            "bin_serializer slots": lambda scls=scls, data=data: decode(scls, data),
            "msgpack list": lambda pl=pl, f=from_l: f(unpackb(pl)),
            "msgpack dict": lambda pd=pd, f=from_d: f(unpackb(pd)),
            "msgspec Struct": lambda d=mdata, f=mdec.decode: f(d),
        }))

    hint = list[Tick]
    data = encode(ticks, schema=hint)
    assert decode(hint, data) == ticks
    pl = packb([tick_list(t) for t in ticks])
    pd = packb([tick_dict(t) for t in ticks])
    m = to_msgspec(ticks)
    menc, mdec = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(list[MTick])
    mdata = menc.encode(m)
    wl = f"Tick batch ({BATCH})"
    sticks, shint = to_slots(ticks), list[SLOTS[Tick]]
    assert encode(sticks, schema=shint) == data
    out.append((wl, "encode", {
        "bin_serializer": lambda: encode(ticks, schema=hint),
        "bin_serializer slots": lambda: encode(sticks, schema=shint),
        "msgpack list": lambda: packb([tick_list(t) for t in ticks]),
        "msgpack dict": lambda: packb([tick_dict(t) for t in ticks]),
        "msgspec Struct": lambda: menc.encode(m),
    }))
    out.append((wl, "decode", {
        "bin_serializer": lambda: decode(hint, data),
        "bin_serializer slots": lambda: decode(shint, data),
        "msgpack list": lambda: [Tick(*x) for x in unpackb(pl)],
        "msgpack dict": lambda: [Tick(**x) for x in unpackb(pd)],
        "msgspec Struct": lambda: mdec.decode(mdata),
    }))
    if with_numpy:
        from bin_serializer.types import Records
        rec = Records[Tick]
        arr = decode(rec, data)
        assert len(arr) == BATCH and int(arr["quantity"][3]) == ticks[3].quantity
        out.append((wl + " as numpy records", "decode", {
            "bin_serializer": lambda: decode(rec, data),
            "bin_serializer slots": None,
            "msgpack list": None, "msgpack dict": None,
            "msgspec Struct": lambda: mdec.decode(mdata),
        }))
    return out


def measure(fn, repeat: int, min_time: float) -> dict:
    timer = timeit.Timer(fn, timer=time.perf_counter)
    number, _ = timer.autorange()
    while timer.timeit(number) < min_time:
        number *= 2
    runs = [timer.timeit(number) / number * 1e9 for _ in range(repeat)]
    return {"best_ns": min(runs), "runs_ns": runs, "loops": number}


IMPLS = ("bin_serializer", "bin_serializer slots", "msgpack list", "msgpack dict", "msgspec Struct")
OURS = IMPLS[:2]


def render(rows: list, env: dict) -> str:
    lines = [
        "# Python: bin_serializer vs msgpack and msgspec",
        "",
        f"Python {env['python']}, {env['platform']}; bin_serializer codec: **{env['backend']}**; msgpack "
        f"{env['msgpack']}, msgspec {env['msgspec']}. Best of {env['repeat']} timeit runs, ns per operation "
        f"(a batch counts as one operation). msgpack columns include converting from/to the dataclasses; "
        f"msgspec builds its own Struct objects. Generated by `python/bench/bench_python.py`.",
        "",
        "| workload | op | bin_serializer (dataclass) | bin_serializer (slots=True) | msgpack list | "
        "msgpack dict | msgspec Struct | best bin_serializer vs fastest other |",
        "|---|---|" + "---:|" * len(IMPLS) + "---:|",
    ]
    for r in rows:
        cells = [f"{r[i]['best_ns']:,.0f}" if r.get(i) else "-" for i in IMPLS]
        lines.append(f"| {r['workload']} | {r['op']} | " + " | ".join(cells) + f" | {r['ratio']:.2f}x |")
    lines += ["",
              "`slots=True`: the same schemas declared `@dataclass(slots=True)` (the compiled codec reads and "
              "fills their slots directly, like msgspec does for its Structs). Last column: fastest competitor "
              "time / fastest bin_serializer time; 1.00x or more means bin_serializer is at least as fast as "
              "every other column in that row.", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--min-time", type=float, default=0.1, help="seconds per timed run, at least")
    ap.add_argument("--backend", choices=("c", "python"), default=None, help="default: the compiled codec if built")
    ap.add_argument("--out", type=Path, default=None, help="directory for python_speed.json / .md")
    args = ap.parse_args(argv)
    if args.backend:
        api.set_backend(args.backend)
    try:
        import numpy  # noqa: F401
        with_numpy = True
    except ImportError:
        with_numpy = False
    rows = []
    for workload, op, fns in cases(with_numpy):
        row = {"workload": workload, "op": op}
        for impl in IMPLS:
            row[impl] = measure(fns[impl], args.repeat, args.min_time) if fns.get(impl) else None
        others = [row[i]["best_ns"] for i in IMPLS if i not in OURS and row[i]]
        row["ratio"] = min(others) / min(row[i]["best_ns"] for i in OURS if row[i])
        rows.append(row)
        print(f"  measured {workload} {op}: {row['ratio']:.2f}x", file=sys.stderr)
    env = {"python": sys.version.split()[0], "platform": platform.platform(), "cpus": os.cpu_count(),
           "backend": api.backend(), "bin_serializer": bin_serializer.__version__,
           "msgpack": ".".join(map(str, msgpack.version)), "msgspec": msgspec.__version__,
           "repeat": args.repeat, "min_time_s": args.min_time,
           "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    md = render(rows, env)
    print(md)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "python_speed.json").write_text(json.dumps({"environment": env, "results": rows}, indent=2) + "\n")
        (args.out / "python_speed.md").write_text(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())

