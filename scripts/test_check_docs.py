#!/usr/bin/env python3
"""Self-test of scripts/check_docs.py: a scratch repository with known facts,
one document per rule that must fail with that rule's message, and one that
must pass. Run by ctest (check_docs.self_test) or directly."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "check_docs.py"

FILES = {
    "include/bin_serializer/format/format.hpp": """
        namespace bin_serializer {
        enum class wire_format : unsigned char {
          native = 0,   // a comment, portable
          portable = 1,
          compact = 2,
        };
        }
    """,
    "include/bin_serializer/options.hpp": """
        #include "format/format.hpp"
        namespace bin_serializer {
        struct options {
          wire_format format = wire_format::native;
          std::size_t max_depth = 100; // containers in containers
          bool validate_values = true;
        };
        inline constexpr options native{};
        inline constexpr options portable{.format = wire_format::portable};
        inline constexpr options trusted{.validate_values = false};
        }
    """,
    "include/bin_serializer/format/compact.hpp": """
        inline constexpr options compact{.format = wire_format::compact};
        template <class T>
        inline constexpr options some_options_v = compact;
    """,
    "include/compat/bin_serializer/span_buffer.hpp":
        "// Moved to <bin_serializer/buffer/span_buffer.hpp>; this path keeps working.\n"
        "#include <bin_serializer/buffer/span_buffer.hpp>\n",
    "include/bin_serializer/buffer/span_buffer.hpp": "#pragma once\n#ifdef BIN_SERIALIZER_DEBUG\n#endif\n",
    "CMakeLists.txt": """
        option(BIN_SERIALIZER_BUILD_TESTS "tests" ON)
        set(BIN_SERIALIZER_GTEST_SOURCE_DIR "" CACHE PATH "gtest")
    """,
    "cmake/Extra.cmake": "option(BIN_SERIALIZER_TRANSPORTS \"t\" OFF)\n",
    "CMakePresets.json": """
        {"version": 6,
         "configurePresets": [{"name": "base", "hidden": true}, {"name": "gcc"}, {"name": "clang"}],
         "testPresets": [{"name": "gcc"}]}
    """,
    "scripts/test.sh": "presets=()\n[ -z x ] && presets=(gcc clang python conan)\n",
}

GOOD = """
    # Good

    The 0.1 path `<bin_serializer/span_buffer.hpp>`, `#include <bin_serializer/buffer/span_buffer.hpp>`,
    `buffer/span_buffer.hpp`, `tests/whatever.hpp` (not under include/).

    ```cpp
    constexpr auto opts = bin_serializer::options{.max_depth = 4, .validate_values = false};
    serialize<bin_serializer::compact>(buf, v);
    deserialize<opts>(view, v);
    ```

    Options: `options::max_depth`, `Opts.format`. Presets: `native`, `portable`,
    `compact` and `trusted`.

    | preset | value |
    |---|---|
    | `native` | `options{}` |
    | `portable` | `{.format = wire_format::portable}` |
    | `compact` | `{.format = wire_format::compact}` |
    | `trusted` | `{.validate_values = false}` |

    ## options.hpp

    <!-- formats: all in row "format" -->
    | field | meaning |
    |---|---|
    | `format` | `native`, `portable` or `compact` |
    | `max_depth` | depth |
    | `validate_values` | checks |

    The format byte (0, 1 or 2): 0 native, 1 portable, 2 compact. All three formats.

    | | native | portable | compact |
    |---|---|---|---|
    | size | a | b | c |

    `cmake --preset gcc`, `./scripts/test.sh gcc python`, the `clang` and `trusted` presets,
    `-DBIN_SERIALIZER_BUILD_TESTS=OFF`, `BIN_SERIALIZER_TRANSPORTS=ON`, `-DBIN_SERIALIZER_DEBUG=0`.

    <!-- formats: all -->
    Native, portable and compact.

    ## core/encode.hpp: `serialize<Opts>`

    Links: [up](#good), [encode](#coreencodehpp-serializeopts), [options](#optionshpp),
    [again](#good-1), <a id="custom"></a>[custom](#custom).

    # Good
"""

# (document, text every expected message contains)
BAD = {
    "header": ("See <bin_serializer/no_such.hpp>.", "[header] bin_serializer/no_such.hpp does not exist"),
    "header-dir": ("See `buffer/nope.hpp`.", "[header] buffer/nope.hpp does not exist"),
    "header-compat": ("```cpp\n#include <bin_serializer/span_buffer.hpp>\n```",
                      "[header] bin_serializer/span_buffer.hpp is a 0.1 path (include/compat/): "
                      "include <bin_serializer/buffer/span_buffer.hpp>"),
    "option-brace": ("```cpp\nconstexpr auto o = bin_serializer::options{.max_dept = 4};\n```",
                     "[option] the initialiser .max_dept = names options member 'max_dept'"),
    "option-scope": ("Set `options::max_strings`.", "options member 'max_strings'"),
    "option-opts": ("`Opts.fromat`", "options member 'fromat'"),
    "option-table": ("## options\n\n| field | meaning |\n|---|---|\n| `format` | `native`, `portable`, `compact` |\n"
                     "| `max_depth` | d |\n| `max_size` | s |\n",
                     "options member 'max_size'"),
    "option-table-omits": ("## options\n\n| field | meaning |\n|---|---|\n| `format` | f |\n| `max_depth` | d |\n",
                           "the options table omits member(s) validate_values"),
    "preset-arg": ("`serialize<bin_serializer::fast>(buf, v)`", "[preset] bin_serializer::fast is used as options"),
    "preset-unqualified": ("`deserialize<speedy>(view, v)`", "[preset] speedy is used as options"),
    "preset-table": ("| preset | value |\n|---|---|\n| `native` | a |\n| `portable` | b |\n| `trusted` | c |\n",
                     "[preset] the preset table omits compact"),
    "preset-table-unknown": ("| preset | value |\n|---|---|\n| `native` | a |\n| `portable` | b |\n"
                             "| `compact` | c |\n| `trusted` | d |\n| `turbo` | e |\n",
                             "the preset table lists turbo"),
    "preset-sentence": ("Presets: `native`, `portable`, `trusted`.", "'Presets:' omits compact"),
    "cmake-preset": ("cmake --preset gcc-13", "[cmake-preset] --preset gcc-13"),
    "test-stage": ("./scripts/test.sh gcc msvc", "scripts/test.sh msvc"),
    "cmake-preset-ticks": ("the `gcc` and `icc` presets", "`icc` preset"),
    "cmake-option": ("-DBIN_SERIALIZER_NO_SUCH=ON", "[cmake-option] BIN_SERIALIZER_NO_SUCH"),
    "cmake-option-on": ("BIN_SERIALIZER_GRPC=ON", "[cmake-option] BIN_SERIALIZER_GRPC"),
    "enum": ("```cpp\nenum class wire_format : std::uint8_t { native, portable };\n```",
             "enum class wire_format lists wire formats but omits compact"),
    "format-ids": ("`FORMAT(f)` (`f` = 0 native, 1 portable)", "a list of format ids"),
    "format-id-wrong": ("0 native, 2 portable, 1 compact", "pairs id 2 with portable"),
    "format-byte": ("the format byte (0 or 1)", "'format byte (0 or 1)' but the format ids are 0, 1, 2"),
    "format-header": ("| | native (default) | portable |\n|---|---|---|\n| x | a | b |\n",
                      "this table's header lists wire formats but omits compact"),
    "format-rows": ("| format | use |\n|---|---|\n| native | a |\n| portable | b |\n",
                    "this table's first column lists wire formats but omits compact"),
    "format-inline": ("format (`native` /\n`portable`)", "omits compact"),
    "both": ("The same in both formats.", "'both formats' but there are 3 wire formats"),
    "marker-block": ("<!-- formats: all -->\nNative and portable only.", "the block marked"),
    "marker-row": ("<!-- formats: all in row \"Wire size\" column \"us\" -->\n| | us | them |\n|---|---|---|\n"
                   "| Wire size | fixed widths | compact |\n", "row \"Wire size\", column \"us\" lists wire formats"),
    "link-anchor": ("# Top\n\nSee [x](#nowhere).", "[link] this file has no heading for #nowhere"),
    "link-file": ("See [x](missing.md#top).", "[link] missing.md: no such file"),
    "link-other": ("See [x](good.md#no-such-heading).", "good.md has no heading for #no-such-heading"),
    "marker-no-row": ("<!-- formats: all in row \"Size\" -->\n| a | b |\n|---|---|\n| x | y |\n",
                      "the table has no row \"Size\""),
}


class CheckDocs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.root = Path(cls.tmp.name)
        for rel, text in FILES.items():
            p = cls.root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(textwrap.dedent(text).lstrip())

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_check(self, name, text):
        doc = self.root / "docs" / f"{name}.md"
        doc.parent.mkdir(exist_ok=True)
        doc.write_text(text)
        return subprocess.run([sys.executable, str(SCRIPT), "--root", str(self.root), str(doc)],
                              capture_output=True, text=True)

    def test_good_document_passes(self):
        r = self.run_check("good", textwrap.dedent(GOOD))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("0 problem(s)", r.stderr)

    def test_each_rule_fails(self):
        self.run_check("good", textwrap.dedent(GOOD))  # the target of link-other
        for name, (text, expected) in BAD.items():
            with self.subTest(rule=name):
                r = self.run_check(name, text + "\n")
                self.assertEqual(r.returncode, 1, f"{name}: expected a failure\n{r.stdout}{r.stderr}")
                self.assertIn(expected, r.stdout)
                self.assertRegex(r.stdout, rf"docs/{name}\.md:\d+: \[")

    def test_line_numbers(self):
        r = self.run_check("lines", "# t\n\nfine\n\nIn both formats.\n")
        self.assertIn("docs/lines.md:5: [formats]", r.stdout)

    def test_default_files(self):
        (self.root / "README.md").write_text("Only <bin_serializer/gone.hpp>.\n")
        (self.root / "CHANGELOG.md").write_text("Removed <bin_serializer/old.hpp>.\n")
        for p in (self.root / "docs").glob("*.md"):
            p.unlink()
        r = subprocess.run([sys.executable, str(SCRIPT), "--root", str(self.root)],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("README.md:1: [header] bin_serializer/gone.hpp", r.stdout)
        self.assertNotIn("CHANGELOG", r.stdout)


if __name__ == "__main__":
    unittest.main()
