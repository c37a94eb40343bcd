"""``python -m bin_serializer <command>``.

    python -m bin_serializer generate DESCRIPTION.json [-o module.py] [--custom 'ns::T=module:attr'] [--raw-strings]
    python -m bin_serializer check OLD.json NEW.json
    python -m bin_serializer dump --schema DESCRIPTION.json FILE... [--framed] [--custom ...] [--raw-strings]
    python -m bin_serializer cat LOG [--type NAME_OR_INDEX ...] [--custom ...] [--raw-strings]
                                     [--follow | -F] [--interval S] [--idle S]
    python -m bin_serializer info LOG [--json]
    python -m bin_serializer pack (--schema DESCRIPTION.json [--framed] [--bare] | --log LOG) [-o OUT] [FILE...]

``generate`` writes the typed Python module of a C++ type description
(``bin_serializer::schema_json<T, Opts>()``, docs/schema.md): its dataclasses,
``FORMAT``, ``FINGERPRINT``, ``MESSAGE_ID`` and ``ROOT``. Exit status: 0, or 2
with a message on standard error when the description cannot be read.

``check`` compares a saved description (OLD) with the current one (NEW) and
prints every breaking change, one per line naming the field path
(``Config.limits.max_users: retyped (uint 2 -> sint 2)``); exit status 1 when
there is one, 0 (printing ``compatible``) when there is none, 2 when a
description cannot be read (malformed JSON or UTF-8, a wrong key, limits).

``dump`` prints each message of the files (``-``: standard input) as one JSON
object per line: ``{"file", "offset", "value"}``. Plain messages back to back
in the description's format, or framed messages with ``--framed`` (messages of
another type are listed as ``{"skipped": ...}``). Bytes are hex strings,
enums their integers, variants ``{"index", "value"}``, maps lists of
``[key, value]`` pairs (in wire order), sets lists, non-finite floats the
strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``; retired fields are left
out, kept unknown fields are ``"__unknown__": {"count", "data"}``. Where the
bytes are bad it prints ``{"file", "offset", "error": kind, "detail", "path"}``
(the absolute offset of the bad byte) and exits 1 (a plain file stops there,
a framed file goes on with the next frame while its framing holds); 2 when
the description or a file cannot be read.

``cat`` prints every record of a record log (``bin_serializer.log``,
docs/wire-format.md section 13; ``-``: standard input) as one JSON object
per line, ``{"type": index, "name": name, "value": value}`` (values as for
``dump``), reading the records with the types built from the descriptions the
log embeds (no user code is imported); fields a newer version of an evolvable
struct appended, which its description does not name, are kept and printed
as ``"__unknown__"`` (``dump`` does the same). ``--type`` (repeatable: a type index,
or a type name with or without its C++ namespace) prints only those types.
At a corruption it writes ``corrupt log at offset N ...`` to standard error
and goes on at the next valid block. Exit status: 0 the log ends cleanly, 1
corruption (or a record that cannot be read: an error line, then it stops),
2 usage or a bad header, 3 a torn tail (``torn tail at offset N`` on
standard error: a writer died inside its last block). ``--follow`` (``-f``)
then prints the records a writer adds as it seals them (``LogReader.follow``),
until interrupted or ``--idle`` seconds without one; ``-F`` (``--follow-name``)
also follows a rotated log into the new file at LOG (``on_rotation="follow"``).

``pack`` is the inverse of ``dump`` and ``cat``: it writes the values of
their JSON lines (``--bare``: lines that are values alone), read by
``jsonform.from_json`` and checked against the types, as messages of the
description (back to back, or framed with ``--framed``) or, with ``--log
LOG``, as a record log with LOG's header (format, types and descriptions,
byte for byte); a ``cat`` line's ``type`` index, or its ``name`` alone,
picks the type. ``-o OUT`` is written under a temporary name and renamed
once every line was written (required for a log); without it, standard
output. Exit status: 0, 1 a line that cannot be written (``FILE:LINE: why``
on standard error; OUT is left as it was), 2 usage or a description or log
that cannot be read.

``info`` summarises a record log without decoding it (``LogReader.tally``:
the blocks' CRCs and framing are checked, so the counts are of the records
``cat`` would print): its format, size and header size, one row per type
(index, records, message id, fingerprint, the described name and, for an
evolvable type, how many versions its description lists; ``(no
description)`` for a log written without them), each corruption, and how the
log ends. ``--json`` prints the same as one JSON object (``file``, ``bytes``,
``format``, ``header_bytes``, ``types``, ``records``, ``end``,
``end_offset``, ``corruptions``). Exit status as for ``cat``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Sequence

from .errors import SchemaError
from .jsonform import to_json


def _generate(args: argparse.Namespace) -> int:
    from .schema import generate
    customs = {}
    for c in args.custom:
        name, sep, target = c.rpartition("=")
        if not sep or not name:
            print(f"bin_serializer generate: --custom takes 'C++ name=module:attribute', not {c!r}",
                  file=sys.stderr)
            return 2
        customs[name] = target
    try:
        with open(args.description, "rb") as f:
            text = f.read()
    except OSError as e:
        print(f"bin_serializer generate: {e}", file=sys.stderr)
        return 2
    try:
        source = generate(text, customs, raw_strings=args.raw_strings)
    except SchemaError as e:
        print(f"bin_serializer generate: {args.description}: {e}", file=sys.stderr)
        return 2
    if args.output in (None, "-"):
        sys.stdout.write(source)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(source)
    return 0


def _read_text(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read(64 << 20)  # more than schema.MAX_TEXT: refused by the parser, not read whole


def _check(args: argparse.Namespace) -> int:
    from .schema import breaking_changes
    try:
        old, new = _read_text(args.old), _read_text(args.new)
    except OSError as e:
        print(f"bin_serializer check: {e}", file=sys.stderr)
        return 2
    try:
        changes = breaking_changes(old, new)
    except (SchemaError, ValueError, RecursionError, MemoryError) as e:
        print(f"bin_serializer check: {e}", file=sys.stderr)
        return 2
    for line in changes:
        print(line)
    if not changes:
        print("compatible")
    return 1 if changes else 0


def _emit(obj: "dict[str, Any]") -> None:
    sys.stdout.write(_dumps(obj) + "\n")


def _dumps(obj: "dict[str, Any]") -> str:
    import json
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


def _value_line(name: str, offset: int, value: Any) -> "tuple[str, bool]":
    """(the JSON line of a decoded message, whether it could be printed)."""
    try:
        return _dumps({"file": name, "offset": offset, "value": to_json(value)}), True
    except (RecursionError, ValueError):
        return _dumps({"file": name, "offset": offset, "error": "limit_exceeded",
                       "detail": "the value nests too deeply to print", "path": ""}), False


def _error_line(name: str, err: Any, base: int = 0) -> "dict[str, Any]":
    return {"file": name, "offset": base + err.offset, "error": str(err.kind), "detail": err.detail,
            "path": err.path}


def _open_input(path: str) -> Any:
    if path == "-":
        return sys.stdin.buffer.read()
    import mmap
    with open(path, "rb") as f:
        try:
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError):  # an empty file (or one that cannot be mapped): read it
            return f.read()


def _dump_plain(name: str, buf: Any, root: Any, fmt: str) -> bool:
    from .api import decode_from
    from .errors import DecodeError
    pos, end = 0, len(buf)
    while pos < end:
        try:
            value, after = decode_from(root, buf, pos, fmt)
        except DecodeError as e:
            _emit(_error_line(name, e))
            return False
        line, printed = _value_line(name, pos, value)
        sys.stdout.write(line + "\n")
        if not printed:
            return False
        pos = after
    return True


def _dump_framed(name: str, buf: Any, root: Any, fmt: str) -> bool:
    from .api import decode
    from .errors import DecodeError
    from .message import iter_messages, message_is
    ok = True
    pos = 0
    try:
        for header, payload in iter_messages(buf):
            at = pos
            start = pos + header.size
            pos = start + header.payload_length
            if not message_is(root, header, fmt):
                _emit({"file": name, "offset": at, "skipped": "another type",
                       "format": header.format, "fingerprint": f"{header.schema_hash:#018x}",
                       "type_id": header.type_id, "payload_length": header.payload_length})
                continue
            try:
                value = decode(root, payload, fmt)
            except DecodeError as e:
                _emit(_error_line(name, e, start))
                ok = False
                continue
            line, printed = _value_line(name, at, value)
            sys.stdout.write(line + "\n")
            ok = ok and printed
    except DecodeError as e:  # the framing itself: nothing after it can be found
        _emit(_error_line(name, e))
        return False
    return ok


def _messages_type(command: str, args: argparse.Namespace) -> "tuple[Any, str] | None":
    """(the root class, the format) of the description --schema names, for
    dump and pack; None having said why on standard error (exit status 2)."""
    from .api import compile_codec
    from .schema import load, parse
    try:
        text = _read_text(args.schema)
    except OSError as e:
        print(f"bin_serializer {command}: {e}", file=sys.stderr)
        return None
    customs = _customs(args.custom, command)
    if customs is None:
        return None
    try:
        root = load(text, customs, raw_strings=args.raw_strings, keep_unknown=True)
        fmt = parse(text)["format"]  # load() checked it
        codec = compile_codec(root, fmt)
        if not args.framed and codec.fixed_size == 0:
            raise SchemaError(f"{codec.name} always encodes to zero bytes: a file holds any number of them")
    except SchemaError as e:
        print(f"bin_serializer {command}: {args.schema}: {e}", file=sys.stderr)
        return None
    return root, str(fmt)


def _dump(args: argparse.Namespace) -> int:
    got = _messages_type("dump", args)
    if got is None:
        return 2
    root, fmt = got
    ok = True
    for path in args.files:
        name = "<stdin>" if path == "-" else path
        try:
            buf = _open_input(path)
        except OSError as e:
            print(f"bin_serializer dump: {e}", file=sys.stderr)
            return 2
        try:
            ok = (_dump_framed if args.framed else _dump_plain)(name, buf, root, fmt) and ok
        except BrokenPipeError:  # the reader went away (`| head`): stop quietly
            import os
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
        finally:
            close = getattr(buf, "close", None)
            if close is not None:
                close()
    sys.stdout.flush()
    return 0 if ok else 1


def _customs(values: "list[str]", prog: str) -> "dict[str, Any] | None":
    customs: "dict[str, Any]" = {}
    for c in values:
        cname, sep, target = c.rpartition("=")
        mod, sep2, attr = target.partition(":")
        if not sep or not cname or not sep2:
            print(f"bin_serializer {prog}: --custom takes 'C++ name=module:attribute', not {c!r}", file=sys.stderr)
            return None
        try:
            import importlib
            customs[cname] = getattr(importlib.import_module(mod), attr)
        except (ImportError, AttributeError) as e:
            print(f"bin_serializer {prog}: --custom {c}: {e}", file=sys.stderr)
            return None
    return customs


def _open_log(command: str, path: str, **options: Any) -> Any:
    """A LogReader of the log at path ('-': standard input), or None having
    said why on standard error (exit status 2: unreadable, bad header, an
    option naming no type of the log)."""
    from .errors import LogHeaderError
    from .log import LogReader
    name = "<stdin>" if path == "-" else path
    try:
        return LogReader(sys.stdin.buffer.read() if path == "-" else path, **options)
    except OSError as e:
        print(f"bin_serializer {command}: {e}", file=sys.stderr)
    except LogHeaderError as e:
        print(f"bin_serializer {command}: {name}: bad header: {e}", file=sys.stderr)
    except ValueError as e:  # --type naming no type of the log
        print(f"bin_serializer {command}: {name}: {e}", file=sys.stderr)
    return None


def _cat(args: argparse.Namespace) -> int:
    from .errors import DecodeError
    customs = _customs(args.custom, "cat")
    if customs is None:
        return 2
    name = "<stdin>" if args.file == "-" else args.file
    rotation = "follow" if args.follow_name else "raise"
    args.follow = args.follow or args.follow_name
    if (args.follow or args.idle is not None) and (args.file == "-" or not args.follow):
        print("bin_serializer cat: --follow reads a file again as it grows (not standard input); --idle needs "
              "--follow", file=sys.stderr)
        return 2
    only: "list[Any] | None" = None
    if args.type:
        only = [int(t) if t.isdigit() else t for t in args.type]
    reader = _open_log("cat", args.file, only=only, customs=customs, raw_strings=args.raw_strings,
                       keep_unknown=True)
    if reader is None:
        return 2
    names = [t.name for t in reader.header.types]
    seen = 0
    status = 0
    from .errors import DescriptionError
    try:
        if args.follow:
            # what was printed is flushed before each wait: a pipe (| grep) sees each record as it comes
            records = reader.follow(args.interval, on_corruption="skip", with_index=True, idle_timeout=args.idle,
                                    on_wait=sys.stdout.flush, on_rotation=rotation)
        else:
            records = reader.records(on_corruption="skip", with_index=True)
    except DescriptionError as e:  # the header's descriptions cannot be read
        reader.close()
        print(f"bin_serializer cat: {name}: bad header: {e}", file=sys.stderr)
        return 2
    try:
        with reader:
            try:
                for index, value in records:
                    while seen < len(reader.corruptions):
                        _corrupt_note(name, reader.corruptions[seen])
                        seen += 1
                    try:
                        line = _dumps({"type": index, "name": names[index], "value": to_json(value)})
                    except (RecursionError, ValueError):
                        line = _dumps({"type": index, "name": names[index], "error": "limit_exceeded",
                                       "detail": "the value nests too deeply to print"})
                    sys.stdout.write(line + "\n")
            except KeyboardInterrupt:  # the end of --follow (without it: interrupted, as ever)
                if not args.follow:
                    raise
            except (DecodeError, SchemaError) as e:  # a record that cannot be read
                err = {"error": str(getattr(e, "kind", "schema")), "offset": getattr(e, "offset", None),
                       "detail": getattr(e, "detail", str(e))}
                sys.stdout.write(_dumps(err) + "\n")
                sys.stdout.flush()
                print(f"bin_serializer cat: {name}: {e}", file=sys.stderr)
                return 1
            except FileNotFoundError:  # --follow: rotated away, and no -F
                sys.stdout.flush()
                print(f"bin_serializer cat: {name}: no such file now (rotated? -F follows the new one)",
                      file=sys.stderr)
                return 1
            while seen < len(reader.corruptions):
                _corrupt_note(name, reader.corruptions[seen])
                seen += 1
            sys.stdout.flush()
            if reader.corruptions:
                first = reader.corruptions[0]
                print(f"bin_serializer cat: {name}: corrupt: {len(reader.corruptions)} corrupt "
                      f"region{'s' if len(reader.corruptions) > 1 else ''}, the first at offset {first.offset}; "
                      f"the log ends {reader.end} at offset {reader.end_offset}", file=sys.stderr)
                status = 1
            elif reader.end == "torn":
                print(f"bin_serializer cat: {name}: torn tail at offset {reader.end_offset} (a writer died inside "
                      f"its last block; the records before it were printed)", file=sys.stderr)
                status = 3
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


class _PackError(Exception):
    """A line pack cannot write: FILE:LINE: why."""


def _pack_lines(files: "list[str]") -> Any:
    """(where, JSON data) of each line of the files ('-': standard input) that is not blank."""
    import json
    for path in files:
        name = "<stdin>" if path == "-" else path
        stream = sys.stdin.buffer if path == "-" else open(path, "rb")
        try:
            for n, raw in enumerate(stream, 1):
                where = f"{name}:{n}"
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise _PackError(f"{where}: not UTF-8 text ({e.reason} at byte {e.start})") from None
                if not line.strip():
                    continue
                try:
                    yield where, json.loads(line)
                except (ValueError, RecursionError) as e:
                    raise _PackError(f"{where}: not a JSON value: {e}") from None
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()


def _pack_value(where: str, data: Any, keys: "set[str]", what: str) -> Any:
    """The "value" of a line that dump or cat printed (keys: the others it may have)."""
    if isinstance(data, dict) and ("error" in data or "skipped" in data):
        why = "error" if "error" in data else "skipped"
        raise _PackError(f"{where}: a line {what} printed for bytes it did not read ({why}): pack writes "
                         f"values only")
    if not isinstance(data, dict) or "value" not in data or not set(data) <= keys | {"value"}:
        raise _PackError(f"{where}: expected a line as {what} prints it, an object with \"value\" (and "
                         f"{', '.join(sorted(repr(k) for k in keys))})")
    return data["value"]


def _pack_output(path: "str | None") -> "tuple[Any, str | None]":
    """(the binary file to write, its temporary path: renamed to path once every line was written)."""
    import os
    if path is None or path == "-":
        return sys.stdout.buffer, None
    tmp = f"{path}.pack-{os.getpid()}.tmp"
    return open(tmp, "wb"), tmp


def _pack(args: argparse.Namespace) -> int:
    import os

    from .jsonform import from_json
    if (args.schema is None) == (args.log is None):
        print("bin_serializer pack: give --schema DESCRIPTION (messages) or --log LOG (a record log like LOG)",
              file=sys.stderr)
        return 2
    if args.log is not None and (args.framed or args.bare or args.output in (None, "-") or args.log == "-"):
        print("bin_serializer pack: --log LOG (a file) writes a record log with its header to a file (-o FILE); "
              "--framed and --bare are for messages", file=sys.stderr)
        return 2
    out = tmp = writer = None
    done = False
    try:
        if args.log is not None:
            from .errors import DescriptionError
            customs = _customs(args.custom, "pack")
            if customs is None:
                return 2
            reader = _open_log("pack", args.log, customs=customs, raw_strings=args.raw_strings, keep_unknown=True)
            if reader is None:
                return 2
            with reader:
                try:
                    classes = [reader.type_class(t.index) for t in reader.header.types]
                except (DescriptionError, SchemaError) as e:
                    print(f"bin_serializer pack: {args.log}: bad header: {e}", file=sys.stderr)
                    return 2
                head, fmt, types = reader._head, reader.format, reader.header.types
            if any(c is None for c in classes):
                missing = next(t.index for t, c in zip(types, classes) if c is None)
                print(f"bin_serializer pack: {args.log}: type {missing} has no description: its records cannot be "
                      f"written from JSON", file=sys.stderr)
                return 2
            from .log import LogWriter
            out, tmp = _pack_output(args.output)
            out.write(head)  # the same header: format, types and descriptions, byte for byte
            out.close()
            out = None
            writer = LogWriter(tmp, classes, format=fmt, append=True, block_bytes=args.block_bytes)
            names = {t.name: t.index for t in types if t.name}
            short = {t.name.rpartition("::")[2]: t.index for t in types if t.name}
            for where, data in _pack_lines(args.files):
                value = _pack_value(where, data, {"type", "name"}, "cat")
                index, name = data.get("type"), data.get("name")
                if index is None:
                    index = names.get(name, short.get(name)) if isinstance(name, str) else None
                    if index is None:
                        raise _PackError(f"{where}: the log has no type named {name!r}")
                if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(types):
                    raise _PackError(f"{where}: \"type\" is a type index of the log, 0 .. {len(types) - 1}, "
                                     f"not {index!r}")
                if name is not None and name != types[index].name:
                    raise _PackError(f"{where}: type {index} of the log is {types[index].name!r}, not {name!r}")
                try:
                    writer.write(from_json(classes[index], value, fmt))
                except ValueError as e:
                    raise _PackError(f"{where}: {e}") from None
            writer.close()
            writer = None
        else:
            from .api import encode
            from .message import encode_message
            got = _messages_type("pack", args)
            if got is None:
                return 2
            root, fmt = got
            out, tmp = _pack_output(args.output)
            for where, data in _pack_lines(args.files):
                value = data if args.bare else _pack_value(where, data, {"file", "offset"}, "dump")
                try:
                    v = from_json(root, value, fmt)
                    out.write(encode_message(v, fmt, schema=root) if args.framed else encode(v, fmt, schema=root))
                except ValueError as e:
                    raise _PackError(f"{where}: {e}") from None
            out.flush()
            if tmp is not None:
                out.close()
                out = None
        done = True
    except _PackError as e:
        print(f"bin_serializer pack: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader of standard output went away
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:  # an input that cannot be read
        print(f"bin_serializer pack: {e}", file=sys.stderr)
        return 2
    finally:
        if writer is not None:
            writer.close()
        if out is not None and out is not sys.stdout.buffer:
            out.close()
        if tmp is not None and not done:
            os.unlink(tmp)
    if tmp is not None:
        os.replace(tmp, args.output)
    return 0


def _info(args: argparse.Namespace) -> int:
    import json
    name = "<stdin>" if args.file == "-" else args.file
    reader = _open_log("info", args.file)
    if reader is None:
        return 2
    with reader:
        size = len(reader._buf)
        counts = reader.tally(on_corruption="skip")
        header = reader.header
        types: "list[dict[str, Any]]" = []
        for t, n in zip(header.types, counts):
            entry: "dict[str, Any]" = {"index": t.index, "name": t.name, "message_id": t.message_id,
                                       "fingerprint": f"{t.fingerprint:#018x}", "described": t.description is not None,
                                       "records": n}
            try:  # an evolvable type's description lists its versions
                versions = json.loads(t.description).get("version_fingerprints") if t.description else None
            except (ValueError, AttributeError, RecursionError):
                versions = None
            if isinstance(versions, list):
                entry["versions"] = len(versions)
            types.append(entry)
        corruptions = [{"offset": e.offset, "resume_offset": e.resume_offset, "detail": e.detail}
                       for e in reader.corruptions]
        end, end_offset = reader.end, reader.end_offset
    status = 1 if corruptions else 3 if end == "torn" else 0
    if args.json:
        sys.stdout.write(_dumps({"file": name, "bytes": size, "format": header.format,
                                 "header_bytes": header.data_offset, "types": types, "records": sum(counts),
                                 "end": end, "end_offset": end_offset, "corruptions": corruptions}) + "\n")
        return status
    out = [f"{name}: record log, format {header.format}, {size} bytes (header {header.data_offset})",
           f"{'type':>6} {'records':>12}  {'message id':<10}  {'fingerprint':<18}  name"]
    for row in types:
        label = row["name"] if row["name"] is not None else "(no description)"
        if "versions" in row:
            label += f" ({row['versions']} version{'s' if row['versions'] != 1 else ''})"
        out.append(f"{row['index']:>6} {row['records']:>12}  {row['message_id']:#010x}  {row['fingerprint']}  "
                   f"{label}")
    for c in corruptions:
        where = (f"going on at offset {c['resume_offset']}" if c["resume_offset"] is not None
                 else "nothing valid follows")
        out.append(f"corrupt at offset {c['offset']}: {c['detail']}; {where}")
    how = {"clean": "ends cleanly", "torn": "ends in a torn tail", "corrupt": "ends in corruption"}.get(str(end))
    out.append(f"{sum(counts)} records; the log {how} at offset {end_offset}")
    sys.stdout.write("\n".join(out) + "\n")
    return status


def _corrupt_note(name: str, err: Any) -> None:
    sys.stdout.flush()
    where = (f"; going on at the next valid block, offset {err.resume_offset}" if err.resume_offset is not None
             else "; nothing valid follows")
    print(f"bin_serializer cat: {name}: corrupt log at offset {err.offset}: {err.detail}{where}", file=sys.stderr)


def main(argv: "Sequence[str] | None" = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bin_serializer",
                                     description="Tools for bin_serializer type descriptions.")
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="write the typed Python module of a type description",
                         description="Write the typed Python module (dataclasses, clean under mypy --strict) "
                                     "of a type description written by bin_serializer::schema_json.")
    gen.add_argument("description", help="the description (JSON)")
    gen.add_argument("-o", "--output", help="the module to write (default: standard output)")
    gen.add_argument("--custom", action="append", default=[], metavar="NAME=MODULE:ATTR",
                     help="the Python hint of a type with its own C++ codec (a 'custom' node), "
                          "e.g. 'ns::Money=bin_serializer.types:i64'; repeatable")
    gen.add_argument("--raw-strings", action="store_true",
                     help="std::string fields as bytes (Annotated[bytes, Text(1)]) instead of str")
    gen.set_defaults(run=_generate)
    chk = sub.add_parser("check", help="list the breaking changes between a saved description and a new one",
                         description="Compare a saved type description (OLD) with the current one (NEW): print "
                                     "every breaking change, one per line naming the field; exit 1 if there is "
                                     "one, 0 ('compatible') if not, 2 if a description cannot be read.")
    chk.add_argument("old", help="the saved description (JSON)")
    chk.add_argument("new", help="the current description (JSON)")
    chk.set_defaults(run=_check)
    dmp = sub.add_parser("dump", help="print the messages of files as JSON lines",
                         description="Print each message of the files (plain messages back to back in the "
                                     "description's format, or framed messages) as one JSON object per line; "
                                     "bad bytes give an error line with the absolute offset and exit status 1.")
    dmp.add_argument("files", nargs="+", metavar="FILE", help="files to read ('-': standard input)")
    dmp.add_argument("--schema", required=True, help="the type description (JSON) of the messages")
    dmp.add_argument("--framed", action="store_true", help="the files hold framed messages (header + payload)")
    dmp.add_argument("--custom", action="append", default=[], metavar="NAME=MODULE:ATTR",
                     help="the Python hint of a type with its own C++ codec, as for generate; repeatable")
    dmp.add_argument("--raw-strings", action="store_true", help="std::string fields as bytes (printed as hex)")
    dmp.set_defaults(run=_dump)
    cat = sub.add_parser("cat", help="print the records of a record log as JSON lines",
                         description="Print every record of a record log as one JSON object per line "
                                     "({type, name, value}), using the type descriptions the log embeds. Exit "
                                     "status: 0 clean end, 1 corruption, 2 usage or bad header, 3 torn tail.")
    cat.add_argument("file", metavar="FILE", help="the log ('-': standard input)")
    cat.add_argument("--type", action="append", default=[], metavar="NAME_OR_INDEX",
                     help="print only records of this type (an index, or a name); repeatable")
    cat.add_argument("--custom", action="append", default=[], metavar="NAME=MODULE:ATTR",
                     help="the Python hint of a type with its own C++ codec, as for generate; repeatable")
    cat.add_argument("--raw-strings", action="store_true", help="std::string fields as bytes (printed as hex)")
    cat.add_argument("--follow", "-f", action="store_true",
                     help="then print the records a writer adds, as it seals them (tail -f), until interrupted")
    cat.add_argument("--follow-name", "-F", action="store_true",
                     help="as --follow, and when the log is rotated (renamed, a new one created at FILE) read the "
                          "old file to its end once its writer closed it, then go on in the new one (tail -F)")
    cat.add_argument("--interval", type=float, default=0.2, metavar="SECONDS",
                     help="with --follow: how often the file is read again (default 0.2)")
    cat.add_argument("--idle", type=float, default=None, metavar="SECONDS",
                     help="with --follow: stop after this long without a new record")
    cat.set_defaults(run=_cat)
    pck = sub.add_parser("pack", help="write messages or a record log from JSON lines (the inverse of dump and cat)",
                         description="Write the values of JSON lines as dump prints them (with --schema: plain "
                                     "messages back to back in the description's format, or framed messages) or "
                                     "as cat prints them (with --log LOG: a record log with LOG's header: its "
                                     "format, types and descriptions). Every value is checked against its type. "
                                     "Exit status: 0 every line written, 1 a line that cannot be (FILE:LINE and "
                                     "why on standard error; an -o file is then left as it was), 2 usage or a "
                                     "description or log that cannot be read.")
    pck.add_argument("files", nargs="*", default=["-"], metavar="FILE",
                     help="JSON lines to read (default and '-': standard input)")
    pck.add_argument("--schema", help="the type description (JSON) of the messages")
    pck.add_argument("--log", metavar="LOG", help="write a record log with the header of this one")
    pck.add_argument("-o", "--output", help="the file to write (default: standard output; required with --log)")
    pck.add_argument("--framed", action="store_true", help="write framed messages (header + payload)")
    pck.add_argument("--bare", action="store_true",
                     help="each line is a value alone, not an object with \"value\" as dump prints")
    pck.add_argument("--block-bytes", type=int, default=4096, metavar="N",
                     help="with --log: seal a block once its records reach N bytes (default 4096)")
    pck.add_argument("--custom", action="append", default=[], metavar="NAME=MODULE:ATTR",
                     help="the Python hint of a type with its own C++ codec, as for generate; repeatable")
    pck.add_argument("--raw-strings", action="store_true",
                     help="std::string fields as bytes, given as hex (as dump and cat print them with it)")
    pck.set_defaults(run=_pack)
    inf = sub.add_parser("info", help="summarise a record log: its types and how many records of each",
                         description="Print a record log's format, its type table (index, records, message id, "
                                     "fingerprint, described name) and how it ends, counting the records without "
                                     "decoding them (no descriptions needed). Exit status as for cat: 0 clean end, "
                                     "1 corruption, 2 usage or bad header, 3 torn tail.")
    inf.add_argument("file", metavar="FILE", help="the log ('-': standard input)")
    inf.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    inf.set_defaults(run=_info)
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
