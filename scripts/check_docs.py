#!/usr/bin/env python3
"""Check that the documentation names only things that exist, and that every
place listing the wire formats lists all of them.

Usage: scripts/check_docs.py [--root DIR] [FILE.md ...]

Without files it checks README.md, docs/*.md and python/README.md under the
repository root (CHANGELOG.md is history and is not checked). Every fact it
checks against is read from the sources, nothing is hard-coded:

  formats        enum class wire_format { ... } under include/
  options        the members of struct options in include/bin_serializer/options.hpp
  presets        every `inline constexpr options NAME` under include/ (not
                 templates such as grpc_options_v)
  CMake presets  the non-hidden presets of CMakePresets.json, plus the stage
                 names of scripts/test.sh (its default `presets=(...)` list)
  CMake options  option(NAME ...) and set(NAME ... CACHE ...) in every
                 CMakeLists.txt and cmake/*.cmake, and macros that headers
                 under include/ test with #if/#ifdef/defined()

Rules (each problem is printed as file:line: [rule] what):

  header        a path bin_serializer/....hpp (in <...>, backticks or prose),
                or a backticked `dir/name.hpp` whose dir is a folder of
                include/bin_serializer/, must exist under include/ (or be a
                0.1 path under include/compat/, which an #include line must
                not use: it names the real header instead).
  option        `.name =` inside options{...} (also `options x{...}`,
                `options x = {...}`), a `{.name = ...}` value in a preset
                table, options::name and Opts.name / opts.name must name a
                member of struct options. A table whose first header cell is
                "field" under a heading that mentions "options" is the options
                table: its first-column names must be members and it must list
                every member.
  preset        bin_serializer::NAME as a template argument (serialize<...>,
                message_is<T, ...>, ...) and an unqualified lower-case NAME as
                the first template argument of serialize/deserialize(_message)
                must be a preset, unless the same file declares NAME.
                A table whose first header cell is "preset" and a "Presets:"
                sentence must name presets only, and every preset.
  cmake-preset  `--preset NAME`, `scripts/test.sh NAME...`, and backticked
                names followed by the word "preset(s)" must exist (the last
                may also be an options preset).
  cmake-option  -DBIN_SERIALIZER_X and BIN_SERIALIZER_X=ON/OFF must exist.
  link          a Markdown link to an anchor, [..](#anchor) or [..](file.md#anchor),
                must name a heading of that file (GitHub's slugs: lower case,
                punctuation dropped, spaces -> "-", repeats get -1, -2, ...) or
                an <a id/name="..."> in it; the file must exist.
  formats       A place lists the wire formats when it is
                  - an `enum class wire_format { ... }` block;
                  - a line pairing two or more format ids with names
                    ("0 native, 1 portable");
                  - "format byte (0 or 1)": ids listed after "format byte";
                  - a table whose header has two or more cells that are format
                    names, or whose first column has two or more such rows;
                  - two or more backticked format names in a row, separated
                    only by ",", "/", "and", "or" (`native` / `portable`);
                  - the block after a marker comment on a line of its own,
                    <!-- formats: all -->  (the next paragraph, table or code
                    block), or <!-- formats: all in row "LABEL" -->, optionally
                    with column "HEADER", before a table (the row whose first
                    cell starts with LABEL, only the cell under HEADER).
                Such a place must name every format (and pair each with its
                own id). "both formats", "either format", "neither format"
                and "the two formats" are wrong unless there are exactly two.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path


# --------------------------------------------------------------------------
# Facts from the sources
# --------------------------------------------------------------------------

def strip_cpp_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def header_files(root: Path) -> list[Path]:
    return sorted((root / "include").rglob("*.hpp"))


def parse_formats(root: Path) -> dict[str, int]:
    """{name: id} from enum class wire_format."""
    for path in header_files(root):
        text = strip_cpp_comments(path.read_text(encoding="utf-8", errors="replace"))
        m = re.search(r"enum\s+class\s+wire_format\b[^{;]*\{(.*?)\}", text, re.S)
        if not m:
            continue
        formats: dict[str, int] = {}
        next_id = 0
        for item in m.group(1).split(","):
            item = item.strip()
            if not item:
                continue
            im = re.fullmatch(r"(\w+)\s*(?:=\s*(\w+))?", item)
            if not im:
                raise SystemExit(f"check_docs: cannot parse wire_format enumerator {item!r} in {path}")
            if im.group(2) is not None:
                next_id = int(im.group(2), 0)
            formats[im.group(1)] = next_id
            next_id += 1
        return formats
    raise SystemExit("check_docs: no `enum class wire_format` under include/")


def parse_option_members(root: Path) -> list[str]:
    path = root / "include" / "bin_serializer" / "options.hpp"
    text = strip_cpp_comments(path.read_text(encoding="utf-8"))
    m = re.search(r"\bstruct\s+options\s*\{", text)
    if not m:
        raise SystemExit(f"check_docs: no `struct options` in {path}")
    depth, i = 1, m.end()
    while depth and i < len(text):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    body = text[m.end():i - 1]
    members = []
    for decl in body.split(";"):
        decl = " ".join(decl.split())
        dm = re.fullmatch(r"(?:[\w:<>]+\s+)+(\w+)\s*(?:=.*|\{.*\})?", decl)
        if dm and "(" not in decl:
            members.append(dm.group(1))
    if not members:
        raise SystemExit(f"check_docs: no members parsed from struct options in {path}")
    return members


def parse_presets(root: Path) -> list[str]:
    presets = []
    for path in header_files(root):
        text = strip_cpp_comments(path.read_text(encoding="utf-8", errors="replace"))
        for m in re.finditer(r"(template\s*<[^;{]*>\s*)?inline\s+constexpr\s+options\s+(\w+)", text):
            if m.group(1) is None and m.group(2) not in presets:
                presets.append(m.group(2))
    return presets


def parse_cmake_presets(root: Path) -> set[str]:
    names: set[str] = set()
    path = root / "CMakePresets.json"
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))
        for key, value in data.items():
            if key.endswith("Presets") and isinstance(value, list):
                names.update(p["name"] for p in value if not p.get("hidden"))
    return names


def parse_test_stages(root: Path) -> set[str]:
    path = root / "scripts" / "test.sh"
    if not path.exists():
        return set()
    lists = re.findall(r"\bpresets=\(([^)]*)\)", path.read_text(encoding="utf-8"))
    return {name for names in lists for name in names.split()}


def parse_cmake_options(root: Path) -> set[str]:
    names: set[str] = set()
    files = [p for p in root.rglob("CMakeLists.txt") if not any(
        part.startswith(".") or part.startswith("build") for part in p.relative_to(root).parts)]
    files += sorted((root / "cmake").glob("*.cmake")) if (root / "cmake").is_dir() else []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        names.update(re.findall(r"\boption\s*\(\s*(BIN_SERIALIZER_\w+)", text))
        names.update(re.findall(r"\bset\s*\(\s*(BIN_SERIALIZER_\w+)[^)]*\bCACHE\b", text, re.S))
    for path in header_files(root):
        text = path.read_text(encoding="utf-8", errors="replace")
        names.update(re.findall(r"#\s*if(?:n?def)?\s+(BIN_SERIALIZER_\w+)", text))
        names.update(re.findall(r"defined\s*\(?\s*(BIN_SERIALIZER_\w+)", text))
    return names


def compat_target(path):
    """The real header a 0.1 forwarder (include/compat/bin_serializer/) names."""
    m = re.search(r"Moved to (<[^>]+>)", path.read_text(encoding="utf-8"))
    return m.group(1) if m else "the real path"


@dataclass
class Facts:
    root: Path
    formats: dict[str, int]
    members: list[str]
    presets: list[str]
    cmake_presets: set[str]
    test_stages: set[str]
    cmake_options: set[str]
    include_dirs: set[str] = field(default_factory=set)

    @classmethod
    def load(cls, root: Path) -> "Facts":
        inc = root / "include" / "bin_serializer"
        dirs = {p.name for p in inc.iterdir() if p.is_dir()} if inc.is_dir() else set()
        return cls(root, parse_formats(root), parse_option_members(root), parse_presets(root),
                   parse_cmake_presets(root), parse_test_stages(root), parse_cmake_options(root), dirs)


# --------------------------------------------------------------------------
# Markdown structure
# --------------------------------------------------------------------------

@dataclass
class Table:
    start: int                 # index of the header line
    rows: list[tuple[int, list[str]]]   # (line index, cells), header first, separator dropped
    heading: str


def split_cells(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    # a | inside backticks is not a cell separator
    cells, cur, tick = [], "", False
    for ch in s:
        if ch == "`":
            tick = not tick
        if ch == "|" and not tick:
            cells.append(cur.strip())
            cur = ""
        else:
            cur += ch
    cells.append(cur.strip())
    return cells


def normalize_cell(cell: str) -> str:
    c = re.sub(r"\([^)]*\)", "", cell)
    c = c.replace("`", "").replace("*", "").strip().lower()
    c = re.sub(r"\s+format$", "", c)
    return c.strip()


def find_tables(lines: list[str], in_code: list[bool]) -> list[Table]:
    tables = []
    heading = ""
    i = 0
    while i < len(lines):
        if not in_code[i] and lines[i].startswith("#"):
            heading = lines[i]
        if (not in_code[i] and lines[i].lstrip().startswith("|") and i + 1 < len(lines)
                and re.fullmatch(r"\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*", lines[i + 1])):
            rows = [(i, split_cells(lines[i]))]
            j = i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                rows.append((j, split_cells(lines[j])))
                j += 1
            tables.append(Table(i, rows, heading))
            i = j
            continue
        i += 1
    return tables


def code_mask(lines: list[str]) -> list[bool]:
    mask, inside = [], False
    for line in lines:
        if line.lstrip().startswith("```"):
            mask.append(True)
            inside = not inside
        else:
            mask.append(inside)
    return mask


# --------------------------------------------------------------------------
# The checks
# --------------------------------------------------------------------------

class Checker:
    def __init__(self, facts: Facts):
        self.f = facts
        self.problems: list[str] = []
        self._slugs: dict[Path, set[str]] = {}

    def report(self, path: str, idx: int, rule: str, what: str) -> None:
        self.problems.append(f"{path}:{idx + 1}: [{rule}] {what}")

    # ---- helpers ----
    def names_formats(self, text: str) -> set[str]:
        return {f for f in self.f.formats if re.search(rf"\b{re.escape(f)}\b", text, re.I)}

    def require_all_formats(self, path, idx, text, where):
        missing = [f for f in self.f.formats if f not in self.names_formats(text)]
        if missing:
            self.report(path, idx, "formats",
                        f"{where} lists wire formats but omits {', '.join(missing)} "
                        f"(wire_format has {', '.join(self.f.formats)})")

    # ---- per file ----
    def check_file(self, path: Path, display: str) -> None:
        first = len(self.problems)
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        in_code = code_mask(lines)
        tables = find_tables(lines, in_code)
        declared = set(re.findall(r"\b(?:auto|options)\s+(\w+)\s*(?:=|\{)", text))
        declared |= set(re.findall(r"\boptions\s+(\w+)\b", text))

        for idx, line in enumerate(lines):
            self.check_headers(display, idx, line)
            self.check_option_refs(display, idx, line)
            self.check_preset_args(display, idx, line, declared)
            self.check_cmake(display, idx, line)
            self.check_format_lines(display, idx, line)
        self.check_options_braces(display, text)
        self.check_enum_blocks(display, text)
        self.check_presets_sentences(display, lines)
        self.check_inline_format_lists(display, lines, in_code)
        self.check_links(path, display, lines, in_code)
        for t in tables:
            self.check_table(display, t)
        self.check_markers(display, lines, in_code, tables)
        # this file's problems in line order
        mine = self.problems[first:]
        mine.sort(key=lambda p: int(p[len(display) + 1:].split(":", 1)[0]))
        self.problems[first:] = mine

    # link -----------------------------------------------------------------
    def check_links(self, path, display, lines, in_code):
        for idx, line in enumerate(lines):
            if in_code[idx]:
                continue
            for m in re.finditer(r"\]\(([^()\s#]*)#([^()\s]+)\)", line):
                target, anchor = m.group(1), m.group(2)
                if target.startswith(("http:", "https:")):
                    continue
                file = (path.parent / target) if target else path
                if not file.is_file():
                    self.report(display, idx, "link", f"{target}: no such file")
                    continue
                if not file.suffix == ".md":
                    continue
                if file not in self._slugs:
                    self._slugs[file] = slugs(file)
                if anchor not in self._slugs[file]:
                    self.report(display, idx, "link",
                                f"{target or 'this file'} has no heading for #{anchor}")

    # header ---------------------------------------------------------------
    def check_headers(self, path, idx, line):
        inc = self.f.root / "include"
        for m in re.finditer(r"(?<![\w/.-])((?:include/)?bin_serializer/[\w/.-]*?\.hpp)\b", line):
            rel = m.group(1).removeprefix("include/")
            if (inc / rel).is_file():
                continue
            if not (inc / "compat" / rel).is_file():
                self.report(path, idx, "header", f"{m.group(1)} does not exist under include/")
            elif re.search(r"#\s*include\s*[<\"]$", line[:m.start()]):
                self.report(path, idx, "header",
                            f"{m.group(1)} is a 0.1 path (include/compat/): include "
                            f"{compat_target(inc / 'compat' / rel)}")
        for m in re.finditer(r"`([\w]+)/([\w/.-]+\.hpp)`", line):
            if m.group(1) in self.f.include_dirs:
                rel = f"bin_serializer/{m.group(1)}/{m.group(2)}"
                if not (inc / rel).is_file():
                    self.report(path, idx, "header",
                                f"{m.group(1)}/{m.group(2)} does not exist under include/bin_serializer/")

    # option ---------------------------------------------------------------
    def bad_member(self, path, idx, name, how):
        if name not in self.f.members:
            self.report(path, idx, "option",
                        f"{how} names options member '{name}', which struct options does not have "
                        f"(members: {', '.join(self.f.members)})")

    def check_option_refs(self, path, idx, line):
        for m in re.finditer(r"\boptions::(\w+)", line):
            self.bad_member(path, idx, m.group(1), f"options::{m.group(1)}")
        for m in re.finditer(r"\b([Oo]pts)\.([A-Za-z_]\w*)", line):
            self.bad_member(path, idx, m.group(2), f"{m.group(1)}.{m.group(2)}")

    def check_options_braces(self, path, text):
        for m in re.finditer(r"\boptions(?:\s+\w+)?\s*(?:=\s*)?\{", text):
            depth, i = 1, m.end()
            while depth and i < len(text):
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            body = text[m.end():i - 1]
            for dm in re.finditer(r"(?<![\w.])\.(\w+)\s*=(?!=)", body):
                idx = text.count("\n", 0, m.end() + dm.start())
                self.bad_member(path, idx, dm.group(1), f"the initialiser .{dm.group(1)} =")

    # preset ---------------------------------------------------------------
    def check_preset_args(self, path, idx, line, declared):
        for m in re.finditer(r"<[^<>()]*?\bbin_serializer::([a-z_]\w*)\s*(?=[,>])", line):
            name = m.group(1)
            if name not in self.f.presets and name not in declared:
                self.report(path, idx, "preset",
                            f"bin_serializer::{name} is used as options but is no preset "
                            f"(presets: {', '.join(self.f.presets)})")
        for m in re.finditer(r"\b(?:de)?serialize(?:_message)?(?:_payload)?<\s*([a-z_]\w*)\s*[,>]", line):
            name = m.group(1)
            if name not in self.f.presets and name not in declared and name not in ("opts",):
                self.report(path, idx, "preset",
                            f"{name} is used as options but is no preset and not declared in this file "
                            f"(presets: {', '.join(self.f.presets)})")

    def check_presets_sentences(self, path, lines):
        text = "\n".join(lines)
        for m in re.finditer(r"^(?!#).*?\bPresets:", text, re.M):
            end = re.search(r"\.(\s|$)", text[m.end():])
            sentence = text[m.end(): m.end() + (end.start() if end else len(text))]
            idx = text.count("\n", 0, m.start())
            named = re.findall(r"`(\w+)`", sentence)
            for n in named:
                if n not in self.f.presets:
                    self.report(path, idx, "preset", f"'Presets:' names {n}, which is no preset")
            missing = [p for p in self.f.presets if p not in named]
            if missing:
                self.report(path, idx, "preset",
                            f"'Presets:' omits {', '.join(missing)} (presets: {', '.join(self.f.presets)})")

    # cmake ----------------------------------------------------------------
    def check_cmake(self, path, idx, line):
        for m in re.finditer(r"--preset[= ]+([\w-]+)", line):
            if m.group(1) not in self.f.cmake_presets:
                self.report(path, idx, "cmake-preset",
                            f"--preset {m.group(1)}: no such preset in CMakePresets.json")
        for m in re.finditer(r"scripts/test\.sh((?:\s+[a-z][\w-]*)+)", line):
            for name in m.group(1).split():
                if name not in self.f.cmake_presets and name not in self.f.test_stages:
                    self.report(path, idx, "cmake-preset",
                                f"scripts/test.sh {name}: neither a CMake preset nor a test.sh stage")
        sep = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*/\s*)"
        for m in re.finditer(rf"((?:`[\w-]+`{sep})*`[\w-]+`)\s+presets?\b", line):
            for name in re.findall(r"`([\w-]+)`", m.group(1)):
                if name not in self.f.cmake_presets and name not in self.f.presets:
                    self.report(path, idx, "cmake-preset",
                                f"`{name}` preset: neither a CMake preset nor an options preset")
        for m in re.finditer(r"(?:-D|\b)(BIN_SERIALIZER_\w+)(?:=(ON|OFF)\b)?", line):
            if (m.group(0).startswith("-D") or m.group(2)) and m.group(1) not in self.f.cmake_options:
                self.report(path, idx, "cmake-option",
                            f"{m.group(1)}: no such CMake option or cache variable (CMakeLists.txt, cmake/)")

    # formats --------------------------------------------------------------
    def check_format_lines(self, path, idx, line):
        names = "|".join(map(re.escape, self.f.formats))
        pairs = re.findall(rf"`?(\d+)`?\s*(?:=\s*)?\**`?({names})\b", line)
        if len(pairs) >= 2:
            for num, name in pairs:
                if int(num) != self.f.formats[name]:
                    self.report(path, idx, "formats",
                                f"pairs id {num} with {name}, whose id is {self.f.formats[name]}")
            self.require_all_formats(path, idx, " ".join(n for _, n in pairs), "a list of format ids")
        for m in re.finditer(r"format byte\s*\(([\d\s,or]+)\)", line):
            ids = {int(x) for x in re.findall(r"\d+", m.group(1))}
            want = set(self.f.formats.values())
            if ids != want:
                self.report(path, idx, "formats",
                            f"'format byte ({m.group(1)})' but the format ids are "
                            f"{', '.join(map(str, sorted(want)))}")
        if len(self.f.formats) != 2:
            for m in re.finditer(r"\b(both formats|either format|neither format|the two formats)\b",
                                 line, re.I):
                self.report(path, idx, "formats",
                            f"'{m.group(1)}' but there are {len(self.f.formats)} wire formats")

    def check_inline_format_lists(self, path, lines, in_code):
        # Paragraphs (and code blocks line by line): a list may wrap.
        names = "|".join(map(re.escape, self.f.formats))
        sep = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*/\s*)"
        idx = 0
        while idx < len(lines):
            if in_code[idx] or not lines[idx].strip():
                start, end = idx, idx + 1
            else:
                start, end = idx, idx
                while end < len(lines) and lines[end].strip() and not in_code[end]:
                    end += 1
            para = "\n".join(lines[start:end])
            for m in re.finditer(rf"`(?:{names})`(?:{sep}`(?:{names})`)+", para):
                line = start + para.count("\n", 0, m.start())
                self.require_all_formats(path, line, " ".join(m.group(0).split()),
                                         f"'{' '.join(m.group(0).split())}'")
            idx = end

    def check_enum_blocks(self, path, text):
        for m in re.finditer(r"enum\s+class\s+wire_format\b[^{;]*\{([^}]*)\}", text):
            idx = text.count("\n", 0, m.start())
            self.require_all_formats(path, idx, m.group(1), "enum class wire_format")

    def check_table(self, path, t: Table):
        header_idx, header = t.rows[0]
        body = t.rows[1:]
        first = normalize_cell(header[0]) if header else ""
        # format names as column headers / as row labels
        hdr_formats = [c for c in header if normalize_cell(c) in self.f.formats]
        if len(hdr_formats) >= 2:
            self.require_all_formats(path, header_idx, " ".join(hdr_formats), "this table's header")
        row_formats = [r[0] for _, r in body if r and normalize_cell(r[0]) in self.f.formats]
        if len(row_formats) >= 2:
            self.require_all_formats(path, header_idx, " ".join(row_formats), "this table's first column")
        # the options table
        if first == "field" and "options" in t.heading.lower():
            listed = []
            for idx, row in body:
                m = re.fullmatch(r"`(\w+)`", row[0].strip()) if row else None
                if m:
                    listed.append(m.group(1))
                    self.bad_member(path, idx, m.group(1), "the options table")
            missing = [x for x in self.f.members if x not in listed]
            if missing:
                self.report(path, header_idx, "option",
                            f"the options table omits member(s) {', '.join(missing)}")
        # a preset table
        if first == "preset":
            listed = []
            for idx, row in body:
                m = re.fullmatch(r"`(\w+)`", row[0].strip()) if row else None
                if m:
                    listed.append(m.group(1))
                    if m.group(1) not in self.f.presets:
                        self.report(path, idx, "preset", f"the preset table lists {m.group(1)}, "
                                    f"which is no preset (presets: {', '.join(self.f.presets)})")
                for cell in row[1:]:
                    for dm in re.finditer(r"\{\s*\.(\w+)\s*=|,\s*\.(\w+)\s*=", cell):
                        self.bad_member(path, idx, dm.group(1) or dm.group(2), "the preset table")
            missing = [p for p in self.f.presets if p not in listed]
            if missing:
                self.report(path, header_idx, "preset",
                            f"the preset table omits {', '.join(missing)}")

    def check_markers(self, path, lines, in_code, tables):
        by_start = {t.start: t for t in tables}
        for idx, line in enumerate(lines):
            # a marker is a line of its own (not one quoted in prose)
            m = re.fullmatch(r"\s*<!--\s*formats:\s*all(?:\s+in\s+row\s+\"([^\"]+)\""
                             r"(?:\s+column\s+\"([^\"]+)\")?)?\s*-->\s*", line)
            if not m or in_code[idx]:
                continue
            j = idx + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j >= len(lines):
                self.report(path, idx, "formats", "marker with nothing after it")
                continue
            label, column = m.group(1), m.group(2)
            if label is None:
                k = j
                if lines[j].lstrip().startswith("```"):
                    k += 1
                    while k < len(lines) and not lines[k].lstrip().startswith("```"):
                        k += 1
                else:
                    while k < len(lines) and lines[k].strip():
                        k += 1
                block = "\n".join(lines[j:k + 1])
                self.require_all_formats(path, j, block, "the block marked <!-- formats: all -->")
                continue
            t = by_start.get(j)
            if t is None:
                self.report(path, idx, "formats", f"marker for row \"{label}\" is not followed by a table")
                continue
            header = t.rows[0][1]
            col = None
            if column is not None:
                col = next((i for i, c in enumerate(header) if normalize_cell(c) == column.lower()), None)
                if col is None:
                    self.report(path, idx, "formats", f"marker: the table has no column \"{column}\"")
                    continue
            rows = [(i, r) for i, r in t.rows[1:] if r and normalize_cell(r[0]).startswith(label.lower())]
            if not rows:
                self.report(path, idx, "formats", f"marker: the table has no row \"{label}\"")
            for ridx, r in rows:
                text = r[col] if col is not None and col < len(r) else " ".join(r[1:])
                where = f"row \"{label}\"" + (f", column \"{column}\"" if column else "")
                self.require_all_formats(path, ridx, text, where)


def slugs(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    in_code = code_mask(lines)
    seen: dict[str, int] = {}
    out: set[str] = set()
    for line, code in zip(lines, in_code):
        if code or not re.match(r"#{1,6}\s", line):
            continue
        base = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        n = seen.get(base, 0)
        out.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    out.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", text))
    return out


def default_docs(root: Path) -> list[Path]:
    docs = [root / "README.md"] + sorted((root / "docs").glob("*.md")) + [root / "python" / "README.md"]
    return [d for d in docs if d.is_file()]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args(argv)
    root = args.root.resolve()
    facts = Facts.load(root)
    checker = Checker(facts)
    files = [f.resolve() for f in args.files] or default_docs(root)
    for f in files:
        try:
            display = str(f.relative_to(root))
        except ValueError:
            display = str(f)
        checker.check_file(f, display)
    for p in checker.problems:
        print(p)
    print(f"check_docs: {len(files)} files, {len(checker.problems)} problem(s); "
          f"formats {', '.join(f'{k}={v}' for k, v in facts.formats.items())}; "
          f"presets {', '.join(facts.presets)}", file=sys.stderr)
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
