#!/usr/bin/env python3
"""What a project's CI does with saved descriptions (docs/evolution.md):

    check_saved.py EXAMPLE_EVOLUTION_EXE

runs the example, which writes the current description and bytes of each of
the five versions, then
  - runs ``python -m bin_serializer check`` on each saved version against the
    next version's current description, and on v1 against v5 (all must be
    compatible), and on v2 against v1 (must be refused: v1 lacks v2's field);
  - compares every file the example writes with the one saved here (the bytes
    of each version, and its description, must not drift).
Exit status 0 when all of that holds. The package is imported from the
source tree (python/ next to examples/) unless it is installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def check(old: Path, new: Path) -> "tuple[int, str]":
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-m", "bin_serializer", "check", str(old), str(new)],
                       capture_output=True, text=True, env=env, timeout=120)
    return r.returncode, (r.stdout + r.stderr).strip()


def main(argv: list) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        subprocess.run([argv[1], str(out)], check=True, stdout=subprocess.DEVNULL, timeout=120)
        for fmt in ("portable", "compact"):
            pairs = [(k, k + 1) for k in range(1, 5)] + [(1, 5)]
            for old, new in pairs:
                rc, text = check(HERE / f"settings.v{old}.{fmt}.json", out / f"settings.v{new}.{fmt}.json")
                print(f"{fmt}: saved v{old} -> current v{new}: {text} (exit {rc})")
                failures += rc != 0
            rc, text = check(HERE / f"settings.v2.{fmt}.json", out / f"settings.v1.{fmt}.json")
            print(f"{fmt}: saved v2 -> v1 (a field removed): {text} (exit {rc})")
            failures += rc != 1 or "volume" not in text
        for saved in sorted(HERE.glob("settings.v*")):
            same = saved.read_bytes() == (out / saved.name).read_bytes()
            failures += not same
            if not same:
                print(f"{saved.name}: the example now writes something else")
    print("ok" if failures == 0 else f"FAILED ({failures})")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
