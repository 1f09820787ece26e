#include "io/archive.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "io/inflate.hpp"

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

// flickr.tar.gz -> flickr
std::string archive_stem(const std::string& path) {
  std::string b = base_name(path);
  for (const char* suffix : {".tar.gz", ".tgz", ".tar"})
    if (ends_with(b, suffix)) return b.substr(0, b.size() - std::strlen(suffix));
  return b;
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
  return ends_with(path, ".tar.gz") || ends_with(path, ".tgz") || ends_with(path, ".tar");
}

#ifdef PERRON_HAVE_LIBARCHIVE

namespace {

struct archive_reader {
  archive* a = archive_read_new();
  ~archive_reader() { archive_read_free(a); }
};

std::string archive_message(archive* a, const char* fallback) {
  const char* m = archive_error_string(a);
  return m ? m : fallback;
}

// Reads the current member's data, growing from the header's size (capped
// by what deflate could have produced from the whole archive).
text_buffer read_member(archive* a, archive_entry* e, const std::string& path, std::uint64_t archive_bytes) {
  const std::int64_t declared = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
  const std::uint64_t cap = archive_bytes * 1032 + (1 << 20);
  text_buffer out(static_cast<std::size_t>(
      std::min<std::uint64_t>(declared > 0 ? std::uint64_t(declared) : 1 << 20, cap)));
  for (;;) {
    if (out.room() == 0) out.reserve(out.capacity() + std::max<std::size_t>(out.capacity() / 2, 1 << 20));
    const la_ssize_t got = archive_read_data(a, out.tail(), out.room());
    if (got < 0)
      throw io_error(path, "cannot read " + std::string(archive_entry_pathname(e)) + " in the archive: " +
                               archive_message(a, "read failed (truncated or corrupt archive?)"));
    if (got == 0) break;
    out.set_size(out.size() + static_cast<std::size_t>(got));
  }
  if (declared > 0 && out.size() != static_cast<std::uint64_t>(declared))
    throw io_error(path, std::string(archive_entry_pathname(e)) + " in the archive is truncated (" +
                             std::to_string(out.size()) + " of " + std::to_string(declared) + " bytes)");
  return out;
}

// After the member read: the archive read to its end, then, for a gzip one,
// nothing may follow the gzip data (as for .mtx.gz and .txt.gz; libarchive
// stops at the end of the gzip member and ignores what follows). Where
// libarchive consumed fewer bytes than the file holds, the file is inflated
// once more, the text dropped, by the inflater that refuses trailing data
// (the tar's padding after its end marker may also be left unread).
void check_archive_end(archive* a, const std::string& path, std::uint64_t file_bytes, bool at_end) {
  archive_entry* e = nullptr;
  while (!at_end) {
    const int rc = archive_read_next_header(a, &e);
    if (rc == ARCHIVE_EOF) break;
    if (rc == ARCHIVE_FATAL)
      throw io_error(path, "cannot read the archive: " + archive_message(a, "corrupt or truncated"));
  }
  const int filters = archive_filter_count(a);
  if (filters < 2 || archive_filter_code(a, 0) != ARCHIVE_FILTER_GZIP) return;
  const la_int64_t raw = archive_filter_bytes(a, filters - 1);
  if (raw >= 0 && static_cast<std::uint64_t>(raw) >= file_bytes) return;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw io_error(path, std::strerror(errno));
  struct closer {
    std::FILE* f;
    ~closer() { std::fclose(f); }
  } close_it{f};
  gzip_inflater z(path, [f](unsigned char* out, std::size_t n) { return std::fread(out, 1, n, f); });
  std::vector<char> scratch(std::size_t(1) << 20);
  while (z.read(scratch.data(), scratch.size()) == scratch.size()) {
  }
}

}  // namespace

text_buffer read_archive_matrix(const std::string& path, std::string& member, read_stats* stats) {
  const auto start = std::chrono::steady_clock::now();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) throw io_error(path, "no such file");
    throw io_error(path, std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throw io_error(path, "is a directory, not a file");
  archive_reader r;
  archive_read_support_filter_all(r.a);
  archive_read_support_format_all(r.a);
  if (archive_read_open_filename(r.a, path.c_str(), std::size_t(1) << 20) != ARCHIVE_OK)
    throw io_error(path, "cannot open the archive: " + archive_message(r.a, "unknown error"));

  const std::string wanted = archive_stem(path) + ".mtx";
  std::vector<std::string> members, mtx;
  text_buffer tentative;  // the first .mtx, kept in case it is the only one
  std::string tentative_name;
  archive_entry* e = nullptr;
  for (;;) {
    const int rc = archive_read_next_header(r.a, &e);
    if (rc == ARCHIVE_EOF) break;
    if (rc == ARCHIVE_FATAL)
      throw io_error(path, "cannot read the archive: " + archive_message(r.a, "corrupt or truncated"));
    if (rc == ARCHIVE_RETRY) continue;
    if (archive_entry_filetype(e) != AE_IFREG) continue;
    const std::string name = archive_entry_pathname(e);
    members.push_back(name);
    if (!ends_with(name, ".mtx")) continue;
    mtx.push_back(name);
    if (base_name(name) == wanted) {
      member = name;
      text_buffer t = read_member(r.a, e, path, static_cast<std::uint64_t>(st.st_size));
      check_archive_end(r.a, path, static_cast<std::uint64_t>(st.st_size), false);
      if (stats) {
        stats->file_bytes = static_cast<std::uint64_t>(st.st_size);
        stats->gzip = true;
        stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
      return t;
    }
    if (mtx.size() == 1) {
      tentative = read_member(r.a, e, path, static_cast<std::uint64_t>(st.st_size));
      tentative_name = name;
    } else {
      tentative = text_buffer();  // ambiguous unless one named like the archive follows
    }
  }
  if (mtx.empty())
    throw parse_error(path, 0, "the archive holds no .mtx file (members: " + member_list(members) + ")");
  if (mtx.size() > 1)
    throw parse_error(path, 0,
                      "the archive holds several .mtx files and none is named " + wanted + " (" +
                          member_list(mtx) + "); unpack it and name the one to read");
  member = tentative_name;
  check_archive_end(r.a, path, static_cast<std::uint64_t>(st.st_size), true);
  if (stats) {
    stats->file_bytes = static_cast<std::uint64_t>(st.st_size);
    stats->gzip = true;
    stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return tentative;
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
    if (buf_.room() < window_) buf_.reserve(buf_.size() + window_);
    const la_ssize_t got = archive_read_data(r_->a, buf_.tail(), buf_.room());
    if (got < 0)
      throw io_error(path_, "cannot read " + member_ + " in the archive: " +
                                archive_message(r_->a, "read failed (truncated or corrupt archive?)"));
    if (got == 0) {
      done_ = true;
      const std::uint64_t total = stats_.text_bytes + buf_.size();
      if (declared_ > 0 && total != static_cast<std::uint64_t>(declared_))
        throw io_error(path_, member_ + " in the archive is truncated (" + std::to_string(total) + " of " +
                                  std::to_string(declared_) + " bytes)");
      // The rest of the archive read, and nothing after its gzip data, as
      // read_archive_matrix checks (costs nothing where libarchive read the whole file).
      check_archive_end(r_->a, path_, stats_.file_bytes, false);
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
  archive_read_support_filter_all(r->a);
  archive_read_support_format_all(r->a);
  if (archive_read_open_filename(r->a, path.c_str(), std::size_t(1) << 20) != ARCHIVE_OK) return nullptr;
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

#else

std::unique_ptr<text_windows> open_archive_windows(const std::string&, std::size_t, std::string&) {
  return nullptr;
}

text_buffer read_archive_matrix(const std::string& path, std::string&, read_stats*) {
  throw not_supported(path +
                      ": reading .tar.gz archives needs libarchive, and perron was built without it "
                      "(install libarchive-dev and rebuild, or unpack the archive and pass the .mtx)");
}

#endif

}  // namespace perron::io::detail
