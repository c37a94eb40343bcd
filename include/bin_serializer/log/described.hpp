// What a type description (schema_json's JSON text, or the Python package's
// compact JSON of the same keys) says of the evolvable structs in it: for
// each object whose "kind" is "evolvable", where it sits and its "versions"
// (the field count of each published version).
//
// Where it sits is its JSON path: the keys and array indices from the
// document's root ("/type/fields/4/type"; a vector's element adds
// "/element"). Names and whitespace differ between the two languages'
// descriptions of one type, the paths do not. log_writer's append compares
// its own description with the file's by these paths (writer.hpp): a nested
// evolvable struct that gained a version leaves its holder's fingerprint as
// it was (a fingerprint counts an evolvable struct's first version), so
// nothing else can see it.
//
// The text comes from a file: the reader takes any bytes, is linear in them,
// and gives up (false) on what is not JSON, nests deeper than max_depth or
// holds more than max_stored bytes of nodes. On JSON without a key given
// twice in one object, it finds the nodes Python's json module finds.
// Keys and the "kind" are compared as written (an escaped "type" is another
// key); numbers are checked only where they are counts.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace bin_serializer::detail::log {

struct evolvable_node {
  std::string path;
  std::vector<std::uint64_t> versions;
};

class evolvable_scan {
public:
  static constexpr int max_depth = 256;
  // Bytes of paths and counts kept in all: far above any type's description.
  static constexpr std::size_t max_stored = std::size_t{1} << 24;

  explicit evolvable_scan(std::string_view text) : s_(text) {}

  // The evolvable nodes of the whole text, in document order (an enclosing
  // node after the ones inside it); false if the text is not one JSON value.
  bool run(std::vector<evolvable_node>& out) {
    out_ = &out;
    std::string path;
    if (!value(path, 0)) return false;
    ws();
    return i_ == s_.size();
  }

private:
  std::string_view s_;
  std::size_t i_ = 0;
  std::size_t stored_ = 0;
  std::vector<evolvable_node>* out_ = nullptr;

  bool at(char c) const { return i_ < s_.size() && s_[i_] == c; }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t'))
      ++i_;
  }
  static bool digit(char c) { return c >= '0' && c <= '9'; }

  static bool hex(char c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

  // After a member or an element: 1 at a comma (another follows), 0 at
  // `close` (taken: the end), -1 at anything else.
  int after_item(char close) {
    ws();
    if (at(',')) {
      ++i_;
      return 1;
    }
    if (!at(close)) return -1;
    ++i_;
    return 0;
  }

  // A value one level down, at path + "/" + part.
  bool nested(std::string& path, std::string_view part, int depth) {
    const std::size_t keep = path.size();
    path += '/';
    path += part;
    const bool ok = value(path, depth + 1);
    path.resize(keep);
    return ok;
  }

  // A string; `raw` is its text between the quotes, escapes as written (and
  // checked: one of \" \\ \/ \b \f \n \r \t, or \u and four hex digits).
  bool string(std::string_view& raw) {
    if (!at('"')) return false;
    const std::size_t start = ++i_;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (static_cast<unsigned char>(s_[i_]) < 0x20) return false;
      if (s_[i_++] != '\\') continue;
      if (i_ >= s_.size()) return false;
      const char e = s_[i_++];
      if (e == 'u') {
        for (int k = 0; k < 4; ++k, ++i_)
          if (i_ >= s_.size() || !hex(s_[i_])) return false;
      } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
        return false;
      }
    }
    if (i_ >= s_.size()) return false;
    raw = s_.substr(start, i_ - start);
    ++i_;
    return true;
  }

  // A number, true, false or null: its characters, not checked further
  // (nothing here reads their values but the counts below).
  bool scalar() {
    const std::size_t start = i_;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (!(digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '+' ||
            c == '.'))
        break;
      ++i_;
    }
    return i_ != start;
  }

  // "versions": an array (at path); `all` tells whether every element is an
  // unsigned integer of at most 19 digits, then in `v`.
  bool counts(std::string& path, int depth, std::vector<std::uint64_t>& v, bool& all) {
    if (depth > max_depth) return false;
    ++i_; // '['
    v.clear();
    all = true;
    ws();
    if (at(']')) {
      ++i_;
      return true;
    }
    for (std::size_t k = 0;; ++k) {
      ws();
      const std::size_t start = i_;
      std::uint64_t x = 0;
      while (i_ < s_.size() && digit(s_[i_]) && i_ - start < 19)
        x = x * 10 + static_cast<std::uint64_t>(static_cast<unsigned char>(s_[i_++]) - '0');
      ws();
      if (i_ == start || !(at(',') || at(']'))) {
        all = false;
        i_ = start;
        if (!nested(path, std::to_string(k), depth)) return false;
      } else {
        v.push_back(x);
      }
      const int next = after_item(']');
      if (next <= 0) return next == 0;
    }
  }

  bool value(std::string& path, int depth) {
    if (depth > max_depth) return false;
    ws();
    if (at('{')) {
      ++i_;
      bool evolvable = false, listed = false;
      std::vector<std::uint64_t> versions;
      ws();
      if (at('}')) {
        ++i_;
        return true;
      }
      for (;;) {
        ws();
        std::string_view key;
        if (!string(key)) return false;
        ws();
        if (!at(':')) return false;
        ++i_;
        ws();
        // (A key given twice: the last one counts, as for any JSON reader.)
        if (key == "kind" && at('"')) {
          std::string_view kind;
          if (!string(kind)) return false;
          evolvable = kind == "evolvable";
        } else if (key == "versions" && at('[')) {
          const std::size_t keep = path.size();
          path += "/versions";
          if (!counts(path, depth + 1, versions, listed)) return false;
          path.resize(keep);
        } else {
          if (key == "kind") evolvable = false;
          if (key == "versions") listed = false;
          if (!nested(path, key, depth)) return false;
        }
        const int next = after_item('}');
        if (next < 0) return false;
        if (next == 0) break;
      }
      if (evolvable && listed) {
        // Each node keeps its path: a budget, so that many nodes under one
        // long path cannot make the copies quadratic in the text.
        stored_ += path.size() + versions.size() * sizeof(std::uint64_t);
        if (stored_ > max_stored) return false;
        out_->push_back({path, std::move(versions)});
      }
      return true;
    }
    if (at('[')) {
      ++i_;
      ws();
      if (at(']')) {
        ++i_;
        return true;
      }
      for (std::size_t k = 0;; ++k) {
        if (!nested(path, std::to_string(k), depth)) return false;
        const int next = after_item(']');
        if (next <= 0) return next == 0;
      }
    }
    if (at('"')) {
      std::string_view ignored;
      return string(ignored);
    }
    return scalar();
  }
};

// Whether the file's description (`file`) describes every version of every
// evolvable struct the writer's own description (`mine`) has, at the same
// place: each version's field count, in order (an older writer, with fewer
// versions, is described). Else false, with the first version the file does
// not describe: `writes` its field count in the writer's type, `described`
// the file's count for that version (its last one when it has fewer). A
// node the file does not have (in a field of a version the file's type
// lacks, which the version fingerprints refuse first) or a file description
// that is not JSON within the limits leaves nothing to compare: true.
inline bool describes_evolvable_nodes(std::string_view file, std::string_view mine,
                                      std::uint64_t& described, std::uint64_t& writes) {
  std::vector<evolvable_node> ours, theirs;
  if (!evolvable_scan(mine).run(ours) || ours.empty()) return true;
  if (!evolvable_scan(file).run(theirs)) return true;
  // Looked up by path: the file's nodes in path order (of equal paths, which
  // only a key given twice makes, the last counts, as for a JSON reader).
  std::vector<std::size_t> order(theirs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return theirs[a].path < theirs[b].path || (theirs[a].path == theirs[b].path && a < b);
  });
  for (const evolvable_node& m : ours) {
    const auto after = std::upper_bound(
        order.begin(), order.end(), m.path,
        [&](const std::string& path, std::size_t i) { return path < theirs[i].path; });
    if (after == order.begin() || theirs[*std::prev(after)].path != m.path) continue;
    const std::vector<std::uint64_t>& f = theirs[*std::prev(after)].versions;
    for (std::size_t k = 0; k < m.versions.size(); ++k) {
      if (k < f.size() && f[k] == m.versions[k]) continue;
      described = k < f.size() ? f[k] : f.empty() ? 0 : f.back();
      writes = m.versions[k];
      return false;
    }
  }
  return true;
}

} // namespace bin_serializer::detail::log
