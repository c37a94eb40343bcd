#!/usr/bin/env python3
"""Check that every #include under include/bin_serializer/ points down the
layers of docs/design.md's "Map of the library".

Usage: scripts/check_layers.py [--root DIR]

The layers are read from the doc itself: the first table after the heading
"## Map of the library". Each row is one layer, in order, the first the
highest. A row whose first cell is a backticked folder (`core/`) is that
folder; its files cell must name (backticked) every header in the folder
(names inside parentheses are descriptions, not files of the row). A row
whose first cell starts with "(top)" holds the top-level headers its files
cell names. Nothing is hard-coded here but the heading.

Rules (each problem is printed as file:line: [rule] what):

  up        a header includes one in a lower row (a later row of the table):
            a part may include only headers of its own row or of rows above
  cycle     the rows' include graph has a cycle (rows that include each
            other, directly or through others), or headers include each
            other (#pragma once hides such a cycle; it is an ordering trap)
  unmapped  a header under include/bin_serializer/ that no row names
  missing   a row names a header that does not exist
  unknown   an #include "..." or <bin_serializer/...> that names no header
  compat    a forwarder under include/compat/bin_serializer/ includes
            anything but a real header (<bin_serializer/dir/name.hpp>)

System headers (<vector>, <grpcpp/...>) are not checked. Exit status 1 on
any problem, 0 otherwise; the summary goes to stderr.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

HEADING = "## Map of the library"
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


class Problems:
    def __init__(self, root: Path):
        self.root = root
        self.items: list[str] = []

    def report(self, path: Path | str, line: int, rule: str, what: str):
        display = path.relative_to(self.root) if isinstance(path, Path) else path
        self.items.append(f"{display}:{line}: [{rule}] {what}")


def read_map(root: Path, problems: Problems):
    """The layers of the design doc: a list of (label, doc line, [paths]) where
    paths are relative to include/bin_serializer/, and for folder rows the
    folder itself. Backticked names inside parentheses describe, they are not
    files of the row."""
    doc = root / "docs" / "design.md"
    lines = doc.read_text(encoding="utf-8").splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.strip() == HEADING)
    except StopIteration:
        problems.report(doc, 1, "missing", f"no heading '{HEADING}'")
        return []
    rows = []
    in_table = False
    for idx in range(start + 1, len(lines)):
        line = lines[idx].strip()
        if line.startswith("## "):
            break
        if not line.startswith("|"):
            if in_table:
                break
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if not in_table:
            in_table = True  # the header row
            continue
        if set("".join(cells)) <= set("-: "):
            continue  # the separator row
        first = cells[0]
        files = cells[-1]
        while re.search(r"\([^()]*\)", files):  # "(what it is)" names no file of the row
            files = re.sub(r"\([^()]*\)", "", files)
        names = re.findall(r"`([\w./-]+\.hpp)`", files)
        folder = re.fullmatch(r"`([\w-]+)/`", first)
        if folder:
            rows.append((folder.group(1) + "/", idx + 1, folder.group(1),
                         [f"{folder.group(1)}/{n}" for n in names]))
        elif first.startswith("(top)"):
            rows.append((first, idx + 1, None, names))
        else:
            problems.report(doc, idx + 1, "missing",
                            f"first cell '{first}' is neither a `folder/` nor '(top) ...'")
    if not rows:
        problems.report(doc, start + 1, "missing", "no table of layers after the heading")
    return rows


def includes_of(path: Path):
    """(line number, kind, target) of every #include in a file."""
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = INCLUDE.match(line)
        if m:
            yield no, m.group(1), m.group(2)


def resolve(inc_dir: Path, header: Path, kind: str, target: str):
    """The header an include names, relative to include/bin_serializer/, or
    None for a system header. A quoted include is looked up next to the file
    first, then (like <...>) under include/."""
    candidates = []
    if kind == '"':
        candidates.append((header.parent / target))
    if target.startswith("bin_serializer/"):
        candidates.append(inc_dir.parent / target)
    elif kind == "<":
        return None
    for c in candidates:
        c = Path(*_normalise(c.parts))
        try:
            rel = c.relative_to(inc_dir)
        except ValueError:
            continue
        return rel.as_posix()
    return "?" + target


def _normalise(parts):
    out = []
    for p in parts:
        if p == "..":
            out.pop()
        elif p != ".":
            out.append(p)
    return out


def find_cycles(graph: dict[str, set[str]]):
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def cycle_in(graph, comp):
    """One cycle through the first node of a strongly connected component:
    the shortest path back to it (breadth first), as a list of nodes."""
    start, members = comp[0], set(comp)
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def check(root: Path) -> Problems:
    problems = Problems(root)
    inc_dir = root / "include" / "bin_serializer"
    doc = root / "docs" / "design.md"
    rows = read_map(root, problems)

    layer_of: dict[str, int] = {}
    for n, (label, line, folder, names) in enumerate(rows):
        for name in names:
            if not (inc_dir / name).is_file():
                problems.report(doc, line, "missing",
                                f"{label} names {name}, which is not under include/bin_serializer/")
            elif name in layer_of and layer_of[name] != n:
                problems.report(doc, line, "missing", f"{name} is in two rows")
            else:
                layer_of[name] = n
    folders = {folder: n for n, (_, _, folder, _) in enumerate(rows) if folder}

    headers = sorted(p for p in inc_dir.rglob("*.hpp"))
    for h in headers:
        rel = h.relative_to(inc_dir).as_posix()
        if rel not in layer_of:
            top = rel.split("/")[0] if "/" in rel else None
            where = (f"the {top}/ row does not name it" if top in folders
                     else "no row of the table names it")
            problems.report(h, 1, "unmapped", f"{rel}: {where} (docs/design.md, '{HEADING[3:]}')")

    def label(n):
        return rows[n][0]

    file_graph: dict[str, set[str]] = {}
    layer_graph: dict[int, set[int]] = {}
    edge_site: dict[tuple[int, int], str] = {}
    for h in headers:
        rel = h.relative_to(inc_dir).as_posix()
        file_graph.setdefault(rel, set())
        for no, kind, target in includes_of(h):
            dep = resolve(inc_dir, h, kind, target)
            if dep is None:
                continue
            if dep.startswith("?") or not (inc_dir / dep).is_file():
                problems.report(h, no, "unknown", f"#include {target} names no header")
                continue
            file_graph[rel].add(dep)
            if rel not in layer_of or dep not in layer_of:
                continue
            a, b = layer_of[rel], layer_of[dep]
            if b > a:
                problems.report(h, no, "up",
                                f"{rel} ({label(a)}, row {a + 1}) includes {dep} ({label(b)}, "
                                f"row {b + 1}): a part may include only its own row or the rows "
                                f"above it in docs/design.md's map")
            if a != b:
                layer_graph.setdefault(a, set()).add(b)
                edge_site.setdefault((a, b), f"{h.relative_to(root)}:{no}")

    str_graph = {str(k): {str(x) for x in v} for k, v in layer_graph.items()}
    for comp in find_cycles(str_graph):
        comp = sorted(comp, key=int)
        path = [int(r) for r in cycle_in(str_graph, comp)]
        hops = [f"{label(a)} -> {label(b)} ({edge_site[(a, b)]})" for a, b in zip(path, path[1:])]
        first = edge_site[(path[0], path[1])].rsplit(":", 1)
        problems.report(first[0], int(first[1]), "cycle",
                        "rows include each other: " + ", ".join(hops))
    for comp in find_cycles(file_graph):
        path = cycle_in(file_graph, comp)
        problems.report(inc_dir / comp[0], 1, "cycle",
                        "headers include each other: " + " -> ".join(path))

    compat = root / "include" / "compat" / "bin_serializer"
    if compat.is_dir():
        for h in sorted(compat.rglob("*.hpp")):
            for no, kind, target in includes_of(h):
                real = target.removeprefix("bin_serializer/")
                if (kind != "<" or not target.startswith("bin_serializer/")
                        or not (inc_dir / real).is_file() or "/" not in real):
                    problems.report(h, no, "compat",
                                    f"a forwarder includes {target}; it may include only "
                                    f"<bin_serializer/dir/name.hpp> headers that exist")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    root = args.root.resolve()
    problems = check(root)
    for p in problems.items:
        print(p)
    print(f"check_layers: {len(problems.items)} problem(s)", file=sys.stderr)
    return 1 if problems.items else 0


if __name__ == "__main__":
    sys.exit(main())
