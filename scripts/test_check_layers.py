#!/usr/bin/env python3
"""Self-test of scripts/check_layers.py: a scratch repository with a small map
of layers and headers that follow it, which must pass; then, one at a time,
an include pointing down the map, two rows that include each other, two
headers that include each other, a header the map does not name, a row naming
a header that does not exist, an include of nothing and a bad 0.1 forwarder,
each of which must fail with file:line and its rule. Run by ctest
(check_layers.self_test) or directly."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "check_layers.py"

DESIGN = """
    # Design

    ## Map of the library

    | folder | what it holds | files |
    |---|---|---|
    | (top) vocabulary | words | `config.hpp`, `options.hpp` (with `wire_format`) |
    | `format/` | formats | `format.hpp`, `copy.hpp` |
    | `cursor/` | cursors | `reader.hpp` |
    | `core/` | the traversal | `encode.hpp`, `tokens.hpp` |
    | `frame/` | frames | `hash.hpp` |
    | (top) umbrella | everything | `all_of_it.hpp` |

    ## Why

    | folder | not the map |
    |---|---|
    | `nothing/` | `x.hpp` |
"""

FILES = {
    "include/bin_serializer/config.hpp": "#pragma once\n",
    "include/bin_serializer/options.hpp": '#pragma once\n#include <cstddef>\n#include "config.hpp"\n',
    "include/bin_serializer/format/format.hpp": '#pragma once\n#include "../options.hpp"\n',
    "include/bin_serializer/format/copy.hpp": '#pragma once\n#include "../config.hpp"\n',
    "include/bin_serializer/cursor/reader.hpp":
        '#pragma once\n#include "../format/copy.hpp"\n#include "../format/format.hpp"\n',
    "include/bin_serializer/core/tokens.hpp": "#pragma once\n",
    "include/bin_serializer/core/encode.hpp":
        '#pragma once\n#include <vector>\n#include "tokens.hpp"\n#include "../cursor/reader.hpp"\n',
    "include/bin_serializer/frame/hash.hpp":
        '#pragma once\n#include <bin_serializer/core/encode.hpp>\n#include "../core/tokens.hpp"\n',
    "include/bin_serializer/all_of_it.hpp": '#pragma once\n#include "frame/hash.hpp"\n',
    "include/compat/bin_serializer/hash.hpp":
        "// Moved to <bin_serializer/frame/hash.hpp>\n#pragma once\n"
        "#include <bin_serializer/frame/hash.hpp>\n",
}

# name: (file, text appended to it or None to create it, expected fragments)
BAD = {
    "up": ("include/bin_serializer/format/format.hpp", '#include "../core/tokens.hpp"\n',
           ["include/bin_serializer/format/format.hpp:3: [up]",
            "format/format.hpp (format/, row 2) includes core/tokens.hpp (core/, row 4)"]),
    "up-angle": ("include/bin_serializer/options.hpp", "#include <bin_serializer/format/copy.hpp>\n",
                 ["include/bin_serializer/options.hpp:4: [up]", "includes format/copy.hpp"]),
    "up-umbrella": ("include/bin_serializer/core/encode.hpp", '#include "../all_of_it.hpp"\n',
                    ["include/bin_serializer/core/encode.hpp:5: [up]", "(top) umbrella"]),
    "row-cycle": ("include/bin_serializer/format/copy.hpp", '#include "../cursor/reader.hpp"\n',
                  ["[cycle] rows include each other: format/ -> cursor/",
                   "cursor/ -> format/ (include/bin_serializer/cursor/reader.hpp:2)"]),
    "file-cycle": ("include/bin_serializer/core/tokens.hpp", '#include "encode.hpp"\n',
                   ["include/bin_serializer/core/encode.hpp:1: [cycle] headers include each other: "
                    "core/encode.hpp -> core/tokens.hpp -> core/encode.hpp"]),
    "unmapped": ("include/bin_serializer/core/extra.hpp", "#pragma once\n",
                 ["include/bin_serializer/core/extra.hpp:1: [unmapped] core/extra.hpp: "
                  "the core/ row does not name it"]),
    "unmapped-top": ("include/bin_serializer/stray.hpp", "#pragma once\n",
                     ["include/bin_serializer/stray.hpp:1: [unmapped] stray.hpp: no row"]),
    "missing": ("docs/design.md", None,
                ["docs/design.md:10: [missing] core/ names core/gone.hpp"]),
    "unknown": ("include/bin_serializer/core/encode.hpp", '#include "nope.hpp"\n',
                ["include/bin_serializer/core/encode.hpp:5: [unknown] #include nope.hpp names no header"]),
    "compat": ("include/compat/bin_serializer/hash.hpp", '#include "frame/hash.hpp"\n',
               ["include/compat/bin_serializer/hash.hpp:4: [compat]"]),
}


def write_tree(root: Path):
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "design.md").write_text(textwrap.dedent(DESIGN).lstrip())
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


class CheckLayers(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name) / "repo"
        write_tree(self.root)

    def tearDown(self):
        self.tmp.cleanup()

    def run_check(self):
        return subprocess.run([sys.executable, str(SCRIPT), "--root", str(self.root)],
                              capture_output=True, text=True, timeout=60)

    def test_good_tree_passes(self):
        r = self.run_check()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("0 problem(s)", r.stderr)

    def test_each_rule_fails(self):
        for name, (rel, text, expected) in BAD.items():
            with self.subTest(rule=name):
                shutil.rmtree(self.root)
                write_tree(self.root)
                path = self.root / rel
                if rel == "docs/design.md":
                    path.write_text(path.read_text().replace("`tokens.hpp` |",
                                                             "`tokens.hpp`, `gone.hpp` |"))
                elif path.exists():
                    path.write_text(path.read_text() + text)
                else:
                    path.write_text(text)
                r = self.run_check()
                self.assertEqual(r.returncode, 1, f"{name}: expected a failure\n{r.stdout}{r.stderr}")
                for fragment in expected:
                    self.assertIn(fragment, r.stdout, name)


if __name__ == "__main__":
    unittest.main()
