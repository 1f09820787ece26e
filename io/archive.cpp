#include "io/archive.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/text.hpp"
#include "io/inflate.hpp"
#include "io/snap.hpp"

#ifdef PERRON_HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif

namespace perron::io::detail {
namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  if (s.size() < n) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - n + i])) != suffix[i]) return false;
  return true;
}

std::string base_name(const std::string& p) {
  const auto slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// The names an archive goes by: tar, compressed or not, and zip (the
// SuiteSparse collection's .tar.gz; KONECT's .tar.bz2; Network Repository's .zip).
constexpr const char* archive_suffixes[] = {".tar.gz", ".tgz",     ".tar.bz2", ".tbz2", ".tbz", ".tar.xz",
                                            ".txz",    ".tar.zst", ".tzst",    ".tar",  ".zip"};

// flickr.tar.gz -> flickr
std::string archive_stem(const std::string& path) {
  std::string b = base_name(path);
  for (const char* suffix : archive_suffixes)
    if (ends_with(b, suffix)) return b.substr(0, b.size() - std::strlen(suffix));
  return b;
}

// A member the graph may be when the archive holds no .mtx: an edge list by
// its extension, or KONECT's out.NAME.
bool edge_list_member(const std::string& name) {
  const std::string b = base_name(name);
  const std::string lower = ascii_lower(b);
  if (lower.rfind("readme", 0) == 0 || lower.rfind("license", 0) == 0) return false;
  for (const char* ext : edge_list_extensions)
    if (ends_with(b, ext)) return true;
  return b.rfind("out.", 0) == 0;
}

// What a member may hold, the graph's likeliest first: a Matrix Market file;
// a graph file (GraphML, GML, Pajek: Newman's karate.zip holds karate.gml
// beside karate.txt, which describes it in prose); an edge list.
enum class member_kind : int { none = 0, edge_list = 1, graph_file = 2, matrix_market = 3 };

// A member's name without the suffix of its own compression ("x.mtx.gz",
// KONECT's "out.x.gz"): a member compressed on its own is told, and read
// (unpacked), as the file it holds.
std::string without_packing(const std::string& name) {
  for (const char* packed : {".gz", ".bz2", ".xz", ".zst"})
    if (ends_with(name, packed)) return name.substr(0, name.size() - std::strlen(packed));
  return name;
}

member_kind kind_of(const std::string& packed_name) {
  const std::string name = without_packing(packed_name);
  if (ends_with(name, ".mtx")) return member_kind::matrix_market;
  for (const char* ext : {".graphml", ".gml", ".net", ".paj"})
    if (ends_with(name, ext)) return member_kind::graph_file;
  return edge_list_member(name) ? member_kind::edge_list : member_kind::none;
}

const char* kind_words(member_kind k) {
  switch (k) {
    case member_kind::matrix_market:
      return ".mtx files";
    case member_kind::graph_file:
      return "graph files (.graphml, .gml, .net)";
    default:
      return "edge lists";
  }
}

// flickr/flickr.mtx in flickr.tar.gz, karate.gml in karate.zip: the member
// whose name less its extension is the archive's less its own.
bool named_like(const std::string& member, const std::string& stem) {
  const std::string b = base_name(without_packing(member));
  const auto dot = b.find_last_of('.');
  return dot != std::string::npos && b.compare(0, dot, stem) == 0 && dot == stem.size();
}

std::string member_list(const std::vector<std::string>& names) {
  std::string s;
  const std::size_t shown = std::min<std::size_t>(names.size(), 12);
  for (std::size_t i = 0; i < shown; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > shown) s += ", ... (" + std::to_string(names.size()) + " in all)";
  return s.empty() ? "none" : s;
}

}  // namespace

bool is_archive_name(const std::string& path) {
  for (const char* suffix : archive_suffixes)
    if (ends_with(path, suffix)) return true;
  return false;
}

packing packing_of(const std::string& path) {
  const bool named = is_archive_name(path);
  const packing by_name = named ? packing::tar : packing::plain;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return by_name;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return by_name;
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> close(f, &std::fclose);
  char head[512];
  std::size_t got = std::fread(head, 1, sizeof head, f);
  if (has_zip_magic(head, got)) return packing::zip;
  if (has_packed_magic(head, got)) return packing::compressed;
  if (has_gzip_magic(head, got)) {
    // Only the first tar header's bytes are inflated; corrupt data is the
    // reader's to report (the archive's, for a name that says archive). A
    // gzipped text named .tgz or .tar.gz is read as the text it is (it read
    // "cannot open the archive: Unrecognized archive format").
    try {
      std::rewind(f);
      gzip_inflater z(path, [f](unsigned char* out, std::size_t n) { return std::fread(out, 1, n, f); });
      got = 0;
      while (got < sizeof head) {
        const std::size_t k = z.read(head + got, sizeof head - got);
        if (k == 0) break;
        got += k;
      }
    } catch (const std::exception&) {
      return named ? packing::gzip_tar : packing::gzip;
    }
    // A tar of no files is only its end marker, blocks of zeros: under a name
    // that says archive it is the archive that holds nothing (it read as an
    // unrecognized text).
    const bool tar_end = got > 0 && std::all_of(head, head + got, [](char c) { return c == 0; });
    return is_tar(std::string_view(head, got)) || (named && (got == 0 || tar_end)) ? packing::gzip_tar
                                                                                   : packing::gzip;
  }
  return is_tar(std::string_view(head, got)) ? packing::tar : by_name;
}

#ifdef PERRON_HAVE_LIBARCHIVE

namespace {

// A gzip archive's bytes are inflated by perron's inflater (io/inflate.hpp)
// and handed to libarchive as a plain tar, not through libarchive's gzip
// filter: that filter skips the gzip trailer without checking its CRC-32 and
// length, so a .tar.gz whose deflate data or trailer was corrupted (a flipped
// digit in a stored block) read as a valid matrix of other numbers. The
// inflater checks both, reads further members as gzip -d does and refuses
// data after the last one, as it does for .mtx.gz. A plain tar that is no
// regular file (a named pipe) comes through here too, uninflated.
struct archive_source {
  std::string path;
  int fd = -1;  // read by read_fully: a named pipe's wait runs the interrupt check (io/interrupt.hpp)
  // The bytes read to tell gzip from tar, handed out first: a named pipe
  // cannot be rewound, and a .tar.gz through one lost them ('corrupt gzip
  // data (incorrect header)'; a plain .tar was opened a second time).
  unsigned char head[2] = {0, 0};
  std::size_t head_size = 0, head_used = 0;
  std::unique_ptr<gzip_inflater> z;  // set for a gzip archive
  std::vector<char> buffer = std::vector<char>(std::size_t(1) << 20);
  std::exception_ptr failure;  // what the inflater threw (it cannot cross libarchive's C frames)
  ~archive_source() {
    if (fd >= 0) ::close(fd);
  }
  // The file's bytes, its head first.
  std::size_t raw(unsigned char* out, std::size_t n) {
    std::size_t k = 0;
    while (head_used < head_size && k < n) out[k++] = head[head_used++];
    return k + read_fully(fd, reinterpret_cast<char*>(out + k), n - k, path);
  }
  // Inflates what is left, the text dropped (the tar's padding after its end
  // marker), so that a bad CRC or length in the trailer, or junk after it, is
  // seen; rethrows what the inflater threw.
  void finish() {
    if (failure) std::rethrow_exception(failure);
    if (!z) return;
    while (z->read(buffer.data(), buffer.size()) == buffer.size()) {
    }
  }
};

la_ssize_t archive_source_read(archive* a, void* client, const void** out) {
  auto* s = static_cast<archive_source*>(client);
  if (s->failure) return -1;
  try {
    *out = s->buffer.data();
    if (!s->z)
      return static_cast<la_ssize_t>(
          s->raw(reinterpret_cast<unsigned char*>(s->buffer.data()), s->buffer.size()));
    return static_cast<la_ssize_t>(s->z->read(s->buffer.data(), s->buffer.size()));
  } catch (...) {
    s->failure = std::current_exception();
    archive_set_error(a, EIO, "corrupt gzip data");
    return -1;
  }
}

struct archive_reader {
  archive* a = archive_read_new();
  std::unique_ptr<archive_source> source;  // set for a gzip archive or one that is no regular file
  ~archive_reader() { archive_read_free(a); }
  // What libarchive's failure came from: the inflater's own error where it
  // failed (a CRC, truncated data), else libarchive's message or `fallback`.
  [[noreturn]] void fail(const std::string& path, const std::string& what, const char* fallback) const {
    if (source && source->failure) std::rethrow_exception(source->failure);
    const char* m = archive_error_string(a);
    std::string said = m ? m : fallback;
    // What libarchive passes on from liblzma and zlib as they say it, where a
    // file was cut short: LZMA_BUF_ERROR ("Lzma library error:  No progress
    // is possible") and Z_BUF_ERROR ("ZIP decompression failed (-5)"); bzip2
    // and zstd say "truncated ... input" themselves.
    if (said.find("Lzma library error") != std::string::npos &&
        said.find("No progress is possible") != std::string::npos)
      said = "truncated xz input";
    if (said == "ZIP decompression failed (-5)") said = "truncated zip input";
    throw io_error(path, what + said);
  }
};

// The archive formats a download may come in, each told by its magic bytes;
// not libarchive's _all: its mtree reader bids on plain text and took a GML
// file compressed whole ("graph [ ...") for an mtree ("Can't parse line 1").
// raw: a file compressed whole, which bids last.
void support_formats(struct archive* a, bool raw) {
  archive_read_support_format_tar(a);
  archive_read_support_format_zip(a);
  archive_read_support_format_7zip(a);
  archive_read_support_format_cpio(a);
  archive_read_support_format_ar(a);
  archive_read_support_format_iso9660(a);
  archive_read_support_format_rar(a);
  archive_read_support_format_rar5(a);
  archive_read_support_format_xar(a);
  archive_read_support_format_cab(a);
  archive_read_support_format_lha(a);
  if (raw) archive_read_support_format_raw(a);
}

// Opens `path` into r, a gzip file or one that is no regular file through
// archive_source. False when it cannot (libarchive's message in r.a).
bool open_archive(archive_reader& r, const std::string& path, bool raw = false) {
  archive_read_support_filter_all(r.a);
  support_formats(r.a, raw);
  auto s = std::make_unique<archive_source>();
  s->path = path;
  s->fd = open_for_reading(path);
  s->head_size = read_fully(s->fd, reinterpret_cast<char*>(s->head), sizeof s->head, path);
  const bool gzip = has_gzip_magic(s->head, s->head_size);
  struct stat st {};
  if (!gzip && ::fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode))
    return archive_read_open_filename(r.a, path.c_str(), std::size_t(1) << 20) == ARCHIVE_OK;
  if (gzip)
    s->z = std::make_unique<gzip_inflater>(
        path, [src = s.get()](unsigned char* out, std::size_t n) { return src->raw(out, n); });
  r.source = std::move(s);
  return archive_read_open(r.a, r.source.get(), nullptr, archive_source_read, nullptr) == ARCHIVE_OK;
}

// Reads the current member's data, growing from the header's size (capped
// by what deflate could have produced from the whole archive).
text_buffer read_member(const archive_reader& r, archive_entry* e, const std::string& path,
                        std::uint64_t archive_bytes) {
  archive* a = r.a;
  const std::int64_t declared = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
  const std::uint64_t cap = archive_bytes * 1032 + (1 << 20);
  // The member's text is read whole, within the memory perron may use, as a
  // plain file is (read_regular): a .tar.gz of 97 KB whose member holds 100 MB
  // of lines read all of it under PERRON_MEMORY_LIMIT=60M before the parse
  // refused it, and a larger one filled the host until the OOM killer.
  // A file compressed whole (libarchive's raw format) has one entry, "data": its text.
  const bool raw = archive_format(r.a) == ARCHIVE_FORMAT_RAW;
  const std::string entry = raw ? std::string("its text") : std::string(archive_entry_pathname(e));
  const std::string where = raw ? "" : " in the archive";
  const std::string what = path + ": reading " + entry + " whole";
  const auto within_memory = [&what](std::size_t bytes, std::size_t held) {
    perron::check_host_memory_holding(double(bytes), double(held),
                                      what + " (" + std::to_string(bytes) + " bytes)");
    return bytes;
  };
  text_buffer out(within_memory(static_cast<std::size_t>(std::min<std::uint64_t>(
                                    declared > 0 ? std::uint64_t(declared) : 1 << 20, cap)),
                                0));
  for (;;) {
    if (out.room() == 0)
      out.reserve(
          within_memory(out.capacity() + std::max<std::size_t>(out.capacity() / 2, 1 << 20), out.capacity()));
    const la_ssize_t got = archive_read_data(a, out.tail(), out.room());
    if (got < 0)
      r.fail(path, "cannot read " + entry + where + ": ", "read failed (truncated or corrupt archive?)");
    if (got == 0) break;
    out.set_size(out.size() + static_cast<std::size_t>(got));
  }
  if (declared > 0 && out.size() != static_cast<std::uint64_t>(declared))
    throw io_error(path, entry + where + " is truncated (" + std::to_string(out.size()) + " of " +
                             std::to_string(declared) + " bytes)");
  return out;
}

// The chosen member's text: a member compressed on its own (x.mtx.gz in a
// tar, KONECT's out.x.gz) inflated, as a file of its name would be; its gzip
// bytes were parsed as text ("source id '\x1f\x8b...'").
text_buffer unpacked(text_buffer t, const std::string& path, const std::string& member) {
  const std::string name = path + ":" + member;
  if (has_gzip_magic(t.data(), t.size())) return gunzip(name, t.data(), t.size());
  if (has_packed_magic(t.data(), t.size())) {
    std::string inner;
    return read_archive_matrix_in(t, name, inner);
  }
  return t;
}

// After the member read: the archive read to its end, then, for a gzip one,
// the rest of the gzip data inflated (archive_source::finish): its trailer's
// CRC-32 and length checked, and nothing but further gzip members after it
// (as for .mtx.gz and .txt.gz; libarchive stops at the tar's end marker).
void check_archive_end(const archive_reader& r, const std::string& path, bool at_end) {
  archive_entry* e = nullptr;
  while (!at_end) {
    const int rc = archive_read_next_header(r.a, &e);
    if (rc == ARCHIVE_EOF) break;
    if (rc == ARCHIVE_FATAL) r.fail(path, "cannot read the archive: ", "corrupt or truncated");
  }
  if (r.source) r.source->finish();
}

}  // namespace

namespace {

// The graph's member of the open archive r (read_archive_matrix's choice):
// of the members of the likeliest kind (kind_of), the one named like the
// archive, else of edge lists edges.*, else the only one. A .mtx named like the archive is taken where it
// comes, the rest read. archive_bytes bounds what a member may inflate to.
text_buffer main_member(const archive_reader& r, const std::string& path, std::uint64_t archive_bytes,
                        std::string& member) {
  const std::string stem = archive_stem(path);
  std::vector<std::string> members, best_names;  // every member; those of the best kind yet
  std::vector<std::string> links;                // links named like a graph: "name -> target"
  member_kind best = member_kind::none;
  text_buffer first, named;  // the best kind's first member, and one named like the archive
  std::string first_name, named_name;
  bool named_by_edges = false;  // named holds edges.*, not a member named like the archive
  archive_entry* e = nullptr;
  for (;;) {
    const int rc = archive_read_next_header(r.a, &e);
    if (rc == ARCHIVE_EOF && archive_format(r.a) == ARCHIVE_FORMAT_EMPTY)  // a compressed empty file
      throw parse_error(path, 0, "empty file");
    if (rc == ARCHIVE_EOF) break;
    if (rc == ARCHIVE_FATAL) r.fail(path, "cannot read the archive: ", "corrupt or truncated");
    if (rc == ARCHIVE_RETRY) continue;
    if (archive_format(r.a) == ARCHIVE_FORMAT_RAW) {  // a file compressed whole: its text, no member
      member.clear();
      text_buffer t = read_member(r, e, path, archive_bytes);
      check_archive_end(r, path, false);
      return t;
    }
    // A link (a symbolic one, or a hard one: GNU tar stores a second name of a
    // file so) holds no text of its own: not followed, but named in the
    // refusals below, which read as if it were not there.
    const char* hard = archive_entry_hardlink(e);
    const char* soft = archive_entry_filetype(e) == AE_IFLNK ? archive_entry_symlink(e) : nullptr;
    if ((hard || soft) && archive_entry_pathname(e)) {
      if (kind_of(archive_entry_pathname(e)) != member_kind::none)
        links.push_back(std::string(archive_entry_pathname(e)) + " -> " + (hard ? hard : soft));
      continue;
    }
    if (archive_entry_filetype(e) != AE_IFREG) continue;
    const std::string name = archive_entry_pathname(e);
    members.push_back(name);
    const member_kind k = kind_of(name);
    if (k == member_kind::none || k < best) continue;
    if (k > best) {  // a likelier kind: what was kept of the others goes
      best = k;
      best_names.clear();
      first = text_buffer();
      named = text_buffer();
      first_name.clear();
      named_name.clear();
      named_by_edges = false;
    }
    best_names.push_back(name);
    // Named like the archive; else, of edge lists, edges.* (Netzschleuder's
    // csv.zip: edges.csv beside nodes.csv and gprops.csv), unless one named
    // like the archive comes after it.
    const bool like_archive = named_like(name, stem);
    const bool edges = k == member_kind::edge_list && named_like(name, "edges");
    const bool is_named = (named_name.empty() || (like_archive && named_by_edges)) && (like_archive || edges);
    if (is_named && k == member_kind::matrix_market) {
      member = name;
      text_buffer t = read_member(r, e, path, archive_bytes);
      check_archive_end(r, path, false);
      return unpacked(std::move(t), path, member);
    }
    if (is_named) {
      named = read_member(r, e, path, archive_bytes);
      named_name = name;
      named_by_edges = !like_archive;
      first = text_buffer();  // not needed: the named one wins
    } else if (best_names.size() == 1) {
      first = read_member(r, e, path, archive_bytes);
      first_name = name;
    } else {
      first = text_buffer();  // ambiguous unless one named like the archive
    }
  }
  const std::string not_followed =
      links.empty() ? std::string() : "; links are not followed (" + member_list(links) + "): unpack it";
  if (best == member_kind::none)
    throw parse_error(path, 0,
                      "the archive holds no .mtx file, graph file (.graphml, .gml, .net) or edge list "
                      "(members: " +
                          member_list(members) + ")" + not_followed);
  if (!named_name.empty()) {
    member = named_name;
    check_archive_end(r, path, true);
    return unpacked(std::move(named), path, member);
  }
  if (best_names.size() > 1)
    throw parse_error(path, 0,
                      std::string("the archive holds several ") + kind_words(best) + " and none is named " +
                          stem +
                          (best == member_kind::matrix_market ? ".mtx"
                           : best == member_kind::edge_list   ? ".* or edges.*"
                                                              : ".*") +
                          " (" + member_list(best_names) + "); unpack it and name the one to read" +
                          (links.empty() ? "" : " (links are not followed: " + member_list(links) + ")"));
  member = first_name;
  check_archive_end(r, path, true);
  return unpacked(std::move(first), path, member);
}

text_buffer read_through_libarchive(const std::string& path, std::string& member, read_stats* stats,
                                    bool raw) {
  const auto start = std::chrono::steady_clock::now();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) throw io_error(path, "no such file");
    throw io_error(path, std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throw io_error(path, "is a directory, not a file");
  archive_reader r;
  if (!open_archive(r, path, raw))
    r.fail(path, raw ? "cannot read it: " : "cannot open the archive: ", "unknown error");
  text_buffer t = main_member(r, path, static_cast<std::uint64_t>(st.st_size), member);
  if (stats) {
    stats->file_bytes = static_cast<std::uint64_t>(st.st_size);
    stats->gzip = true;
    stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return t;
}

}  // namespace

text_buffer read_archive_matrix(const std::string& path, std::string& member, read_stats* stats) {
  return read_through_libarchive(path, member, stats, false);
}

std::optional<text_buffer> read_archive_member(const std::string& path, const std::string& member) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  archive_reader r;
  if (!open_archive(r, path)) r.fail(path, "cannot open the archive: ", "unknown error");
  archive_entry* e = nullptr;
  for (;;) {
    const int rc = archive_read_next_header(r.a, &e);
    if (rc == ARCHIVE_EOF) return std::nullopt;
    if (rc == ARCHIVE_FATAL) r.fail(path, "cannot read the archive: ", "corrupt or truncated");
    if (rc == ARCHIVE_RETRY) continue;
    const char* name = archive_entry_pathname(e);
    if (name && member == name && archive_entry_filetype(e) == AE_IFREG)
      return read_member(r, e, path, static_cast<std::uint64_t>(st.st_size));
  }
}

text_buffer read_packed(const std::string& path, std::string& member, read_stats* stats) {
  return read_through_libarchive(path, member, stats, true);
}

text_buffer read_archive_matrix_in(const text_buffer& bytes, const std::string& name, std::string& member) {
  archive_reader r;
  archive_read_support_filter_all(r.a);
  support_formats(r.a, true);
  if (archive_read_open_memory(r.a, bytes.data(), bytes.size()) != ARCHIVE_OK)
    r.fail(name, "cannot open the archive: ", "unknown error");
  return main_member(r, name, bytes.size(), member);
}

text_buffer read_single_text(const std::string& path, const std::string& what) {
  text_buffer bytes = read_file(path, 1);  // gzip inflated; a pipe or device checked for text
  // Sniffed in what was read, file or pipe alike; a text compressed whole
  // (bzip2, xz, zstd) decompressed as it is, never searched for a member.
  const auto refuse_archive = [&](const text_buffer& t, const char* how) {
    if (is_tar(t.view()) || has_zip_magic(t.data(), t.size()))
      throw io_error(path,
                     std::string("is ") + how + "archive, not " + what + ": unpack it and pass the file");
  };
  refuse_archive(bytes, "an ");
  if (!has_packed_magic(bytes.data(), bytes.size())) return bytes;
  archive_reader r;
  archive_read_support_filter_all(r.a);
  archive_read_support_format_raw(r.a);
  if (archive_read_open_memory(r.a, bytes.data(), bytes.size()) != ARCHIVE_OK)
    r.fail(path, "cannot read it: ", "unknown error");
  archive_entry* e = nullptr;
  const int rc = archive_read_next_header(r.a, &e);
  if (rc == ARCHIVE_EOF) return text_buffer();  // a compressed empty file
  if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) r.fail(path, "cannot read it: ", "corrupt or truncated");
  text_buffer text = read_member(r, e, path, bytes.size());
  refuse_archive(text, "a compressed ");
  return text;
}

namespace {

class archive_windows final : public text_windows {
 public:
  archive_windows(std::unique_ptr<archive_reader> r, archive_entry* e, std::string path, std::size_t window,
                  std::uint64_t file_bytes)
      : r_(std::move(r)),
        path_(std::move(path)),
        member_(archive_entry_pathname(e)),
        window_(std::max<std::size_t>(window, 1)),
        declared_(archive_entry_size_is_set(e) ? archive_entry_size(e) : 0) {
    stats_.file_bytes = file_bytes;
    stats_.gzip = true;
  }
  std::string_view next() override {
    const auto start = std::chrono::steady_clock::now();
    // The bytes after the last window's last newline move to the front.
    if (cut_ < buf_.size()) std::memmove(buf_.mutable_data(), buf_.data() + cut_, buf_.size() - cut_);
    buf_.set_size(buf_.size() - std::min(cut_, buf_.size()));
    cut_ = 0;
    while (!done_ && buf_.size() < window_) read_more();
    for (std::size_t scanned = 0;;) {  // [0, scanned): no newline
      if (done_) {
        cut_ = buf_.size();  // the last window: all that is left
        break;
      }
      const char* b = buf_.data();
      std::size_t k = buf_.size();
      while (k > scanned && b[k - 1] != '\n') --k;
      if (k > scanned) {
        cut_ = k;
        break;
      }
      scanned = buf_.size();  // a line longer than the window: read on
      read_more();
    }
    stats_.text_bytes += cut_;
    stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return {buf_.data(), cut_};
  }
  const read_stats& stats() const override { return stats_; }
  void read_more() {
    if (buf_.room() < window_) {
      // Grown only by a line longer than the window (next() reads on), within
      // the memory perron may use: a member of one 100 MB line grew rank 0 to
      // 189 MB under PERRON_MEMORY_LIMIT=60M (mpirun -np 2), unchecked.
      const std::size_t want = buf_.size() + window_;
      if (want > buf_.capacity())
        perron::check_host_memory_holding(double(want), double(buf_.capacity()),
                                          path_ + ": reading a line of " + member_ + " longer than " +
                                              std::to_string(buf_.size()) + " bytes");
      buf_.reserve(want);
    }
    const la_ssize_t got = archive_read_data(r_->a, buf_.tail(), buf_.room());
    if (got < 0)
      r_->fail(path_,
               "cannot read " + member_ + " in the archive: ", "read failed (truncated or corrupt archive?)");
    if (got == 0) {
      done_ = true;
      const std::uint64_t total = stats_.text_bytes + buf_.size();
      if (declared_ > 0 && total != static_cast<std::uint64_t>(declared_))
        throw io_error(path_, member_ + " in the archive is truncated (" + std::to_string(total) + " of " +
                                  std::to_string(declared_) + " bytes)");
      // The rest of the archive read, its gzip trailer checked and nothing
      // after its gzip data, as read_archive_matrix checks.
      check_archive_end(*r_, path_, false);
    }
    buf_.set_size(buf_.size() + static_cast<std::size_t>(got));
  }
  std::uint64_t size_hint() const override {
    return declared_ > 0 ? static_cast<std::uint64_t>(declared_) : 0;
  }

 private:
  std::unique_ptr<archive_reader> r_;
  std::string path_, member_;
  std::size_t window_;
  std::int64_t declared_;
  text_buffer buf_;
  std::size_t cut_ = 0;  // buf_[0, cut_) is the window handed out last
  bool done_ = false;
  read_stats stats_;
};

}  // namespace

std::unique_ptr<text_windows> open_archive_windows(const std::string& path, std::size_t window,
                                                   std::string& member) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  auto r = std::make_unique<archive_reader>();
  if (!open_archive(*r, path)) return nullptr;
  const std::string wanted = archive_stem(path) + ".mtx";
  archive_entry* e = nullptr;
  for (;;) {
    const int rc = archive_read_next_header(r->a, &e);
    if (rc == ARCHIVE_RETRY) continue;
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) return nullptr;
    if (archive_entry_filetype(e) != AE_IFREG) continue;
    const std::string name = archive_entry_pathname(e);
    if (!ends_with(name, ".mtx")) continue;
    if (base_name(name) != wanted) return nullptr;  // read_archive_matrix decides
    member = name;
    return std::make_unique<archive_windows>(std::move(r), e, path, window,
                                             static_cast<std::uint64_t>(st.st_size));
  }
}

std::string edge_list_head(const std::string& path, std::size_t bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  try {
    archive_reader r;
    if (!open_archive(r, path, true)) return {};
    archive_entry* e = nullptr;
    for (;;) {
      const int rc = archive_read_next_header(r.a, &e);
      if (rc == ARCHIVE_RETRY) continue;
      if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) return {};
      const bool raw = archive_format(r.a) == ARCHIVE_FORMAT_RAW;  // a file compressed whole: its text
      if (!raw && archive_entry_filetype(e) != AE_IFREG) continue;
      const std::string name = raw ? std::string() : std::string(archive_entry_pathname(e));
      if (!raw && kind_of(name) > member_kind::edge_list) return {};  // a .mtx or graph file: no edge list's
      if (!raw && !edge_list_member(name)) continue;
      std::string head(bytes, '\0');
      std::size_t got = 0;
      while (got < bytes) {
        const la_ssize_t k = archive_read_data(r.a, head.data() + got, bytes - got);
        if (k <= 0) break;
        got += static_cast<std::size_t>(k);
      }
      head.resize(got);
      return head;
    }
  } catch (const std::exception&) {
    return {};  // corrupt data: the load says so
  }
}

#else

std::unique_ptr<text_windows> open_archive_windows(const std::string&, std::size_t, std::string&) {
  return nullptr;
}

std::string edge_list_head(const std::string&, std::size_t) { return {}; }

text_buffer read_archive_matrix(const std::string& path, std::string&, read_stats*) {
  throw not_supported(path +
                      ": reading .tar.gz archives needs libarchive, and perron was built without it "
                      "(install libarchive-dev and rebuild, or unpack the archive and pass the .mtx)");
}

text_buffer read_archive_matrix_in(const text_buffer&, const std::string& name, std::string& member) {
  return read_archive_matrix(name, member, nullptr);  // the same refusal
}

std::optional<text_buffer> read_archive_member(const std::string&, const std::string&) {
  return std::nullopt;
}

text_buffer read_packed(const std::string& path, std::string&, read_stats*) {
  throw not_supported(path +
                      ": reading bzip2, xz and zstd files needs libarchive, and perron was built without it "
                      "(install libarchive-dev and rebuild, or decompress the file and pass it)");
}

text_buffer read_single_text(const std::string& path, const std::string& what) {
  text_buffer bytes = read_file(path, 1);
  if (is_tar(bytes.view()) || has_zip_magic(bytes.data(), bytes.size()))
    throw io_error(path, "is an archive, not " + what + ": unpack it and pass the file");
  if (has_packed_magic(bytes.data(), bytes.size())) {
    std::string member;
    return read_packed(path, member);  // the refusal
  }
  return bytes;
}

#endif

}  // namespace perron::io::detail
