// output_file: atomic replacement of a file by rename(2) within one folder.
#include "io/output_file.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/error.hpp"

namespace perron::io {
namespace {

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::string base_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

[[noreturn]] void fail(const std::string& path, const char* what, int err) {
  throw io_error(path, std::string(what) + ": " + std::strerror(err ? err : EIO));
}

// The descriptor a name stands for in this process (/dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N), else -1.
int own_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) continue;
    int fd = -1;
    const char* end = path.data() + path.size();
    const auto [p, ec] = std::from_chars(path.data() + prefix.size(), end, fd);
    if (ec == std::errc() && p == end) return fd;
  }
  return -1;
}

// Where a write through `path` lands: its symbolic links followed, to a file
// that may not exist yet (a dangling link, whose target the shell's > makes
// too), else `path` itself. A loop stops after 40 links (open() refuses it).
std::string written_path(const std::string& path) {
  std::filesystem::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat l {};
    if (::lstat(p.c_str(), &l) != 0 || !S_ISLNK(l.st_mode)) break;
    std::error_code ec;
    const std::filesystem::path to = std::filesystem::read_symlink(p, ec);
    if (ec) break;
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  return p.string();
}

// The commit_together of this thread, if any (the innermost).
thread_local commit_together* together = nullptr;

// The temporary's name beside `target`: hidden, and within NAME_MAX (255)
// and PATH_MAX (4096) however long the target's name is (a name of 244-255
// bytes, legal, was refused: "File name too long").
std::string temporary_pattern(const std::string& target) {
  const std::string folder = folder_of(target);
  std::string base = base_of(target);
  constexpr std::size_t name_max = 255, path_max = 4095, added = 12;  // "." and ".tmp-XXXXXX"
  std::size_t room = name_max - added;
  if (folder.size() + added < path_max) room = std::min(room, path_max - added - folder.size());
  if (base.size() > room) base.resize(std::max<std::size_t>(room, 1));
  return folder + "." + base + ".tmp-XXXXXX";
}

}  // namespace

commit_together::commit_together() : outer_(std::exchange(together, this)) {}

commit_together::~commit_together() {
  for (held& h : held_) ::unlink(h.temp.c_str());  // their guards release as they go
  together = outer_;
}

void commit_together::commit() {
  std::vector<held> all = std::move(held_);
  held_.clear();
  for (std::size_t k = 0; k < all.size(); ++k) {
    if (std::rename(all[k].temp.c_str(), all[k].target.c_str()) == 0) {
      all[k].guard.release();
      continue;
    }
    const int err = errno;
    for (std::size_t j = k; j < all.size(); ++j) ::unlink(all[j].temp.c_str());
    fail(all[k].path, "cannot write", err);
  }
}

void check_output_path(const std::string& path) {
  if (path.empty()) throw invalid_argument("an output file name is empty");
  if (path == "-" || own_descriptor(path) >= 0) return;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw io_error(path, "is a directory");
    return;  // a device or a pipe: opened in place when written
  }
  const output_file probe(path);  // its temporary, removed by the destructor
}

bool names_standard_output(const std::string& path) { return path == "-" || own_descriptor(path) == 1; }

void output_file::open_in_place(int fd) {
  if (fd < 0) fail(path_, "cannot open for writing", errno);
  f_ = ::fdopen(fd, "wb");
  if (!f_) {
    const int err = errno;
    ::close(fd);
    fail(path_, "cannot open for writing", err);
  }
  compress_if_named_gz();
}

namespace {

bool named_gz(const std::string& path) {
  return path.size() > 3 && std::equal(path.end() - 3, path.end(), ".gz", [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

// A FILE* whose bytes go through zlib (glibc's fopencookie): every writer of
// an output_file (fprintf, fwrite, write_lines) compresses without knowing.
ssize_t gz_cookie_write(void* cookie, const char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {  // gzwrite takes an unsigned count
    const auto piece = static_cast<unsigned>(std::min<std::size_t>(size - done, 1u << 30));
    const int wrote = gzwrite(static_cast<gzFile>(cookie), data + done, piece);
    if (wrote <= 0) {
      if (errno == 0) errno = EIO;
      return done ? static_cast<ssize_t>(done) : -1;
    }
    done += static_cast<std::size_t>(wrote);
  }
  return static_cast<ssize_t>(done);
}

int gz_cookie_close(void* cookie) {
  errno = 0;
  if (gzclose(static_cast<gzFile>(cookie)) == Z_OK) return 0;
  if (errno == 0) errno = EIO;
  return EOF;
}

}  // namespace

void output_file::compress_if_named_gz() {
  if (!named_gz(path_)) return;
  const int fd = ::fcntl(::fileno(f_), F_DUPFD_CLOEXEC, 0);  // gzclose closes its own
  gzFile gz = fd < 0 ? nullptr : gzdopen(fd, "wb6");
  if (!gz) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    fail(path_, "cannot open for writing", err ? err : ENOMEM);
  }
  cookie_io_functions_t io{};
  io.write = gz_cookie_write;
  io.close = gz_cookie_close;
  std::FILE* f = ::fopencookie(gz, "wb", io);
  if (!f) {
    const int err = errno;
    gzclose(gz);
    fail(path_, "cannot open for writing", err);
  }
  raw_ = std::exchange(f_, f);
  static thread_local char buffer[1 << 16];
  std::setvbuf(f_, buffer, _IOFBF, sizeof buffer);
}

output_file::output_file(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw invalid_argument("an output file name is empty");
  if (is_stdout()) {
    f_ = stdout;
    return;
  }
  // This process's own descriptor: written where it stands, as the shell's >&N.
  if (const int own = own_descriptor(path_); own >= 0) {
    open_in_place(::fcntl(own, F_DUPFD_CLOEXEC, 0));
    return;
  }
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  // A loop of links, as the shell's > refuses it: the link was replaced by a file.
  if (!exists && errno == ELOOP) fail(path_, "cannot open for writing", ELOOP);
  if (exists && S_ISDIR(st.st_mode)) throw io_error(path_, "is a directory");
  // A device, FIFO or socket (/dev/null, a named pipe): written in place. A
  // temporary renamed over it would replace the node itself.
  if (exists && !S_ISREG(st.st_mode)) {
    open_in_place(::open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
    return;
  }
  // A symbolic link to a file: the file is replaced, not the link. A link to
  // no file yet: that file is made (the link was replaced by a file, and a
  // second output through it, which check_distinct_outputs did not see as
  // the same file either, overwrote the first).
  std::string target = path_;
  struct stat link {};
  if (::lstat(path_.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    if (!exists) {
      target = written_path(path_);
    } else if (char* real = ::realpath(path_.c_str(), nullptr)) {
      target = real;
      std::free(real);
    }
  }
  target_ = target;
  // A hidden name in the same folder: rename() is atomic only within one file system.
  std::string pattern = temporary_pattern(target);
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) fail(path_, "cannot create a file in its folder", errno);
  temp_ = pattern;
  guard_ = temporary_guard(temp_);
  // mkstemp makes the file 0600; a new output gets the usual 0666 & ~umask,
  // one that replaces a file keeps that file's mode (a private 0600 file
  // became world-readable).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask);
  f_ = ::fdopen(fd, "wb");
  if (!f_) {
    const int err = errno;
    ::close(fd);
    ::unlink(temp_.c_str());
    fail(path_, "cannot open for writing", err);
  }
  try {
    compress_if_named_gz();
  } catch (...) {
    std::fclose(std::exchange(f_, nullptr));
    ::unlink(temp_.c_str());
    guard_.release();
    throw;
  }
  if (!raw_) {
    static thread_local char buffer[1 << 16];
    std::setvbuf(f_, buffer, _IOFBF, sizeof buffer);
  }
}

output_file::~output_file() {
  if (is_stdout() || !f_) return;
  std::fclose(f_);
  if (raw_) std::fclose(raw_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
  guard_.release();
}

void output_file::write(std::string_view bytes) {
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size())
    fail(is_stdout() ? std::string("standard output") : path_, "cannot write", errno);
}

void write_lines(output_file& out, std::size_t lines,
                 const std::function<void(std::size_t first, std::size_t last, std::string& text)>& format,
                 std::size_t lines_per_piece) {
  lines_per_piece = std::max<std::size_t>(lines_per_piece, 1);
  const std::size_t pieces = (lines + lines_per_piece - 1) / lines_per_piece;
  // A round of one piece a thread, then its texts in order: the memory held
  // is a round's text, not the file's.
  const auto team = static_cast<std::size_t>(std::max(1, omp_get_max_threads()));
  std::vector<std::string> text(std::min(pieces, team));
  for (std::size_t round = 0; round < pieces; round += text.size()) {
    const std::size_t count = std::min(text.size(), pieces - round);
#pragma omp parallel for schedule(static, 1) num_threads(static_cast <int>(text.size())) if (count > 1)
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t first = (round + k) * lines_per_piece;
      text[k].clear();
      format(first, std::min(lines, first + lines_per_piece), text[k]);
    }
    for (std::size_t k = 0; k < count; ++k) out.write(text[k]);
  }
}

void append_g(std::string& text, double x, int digits) {
  char buf[64];
  // to_chars with a precision formats as printf's %.*g does in the C locale.
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, digits);
  text.append(buf, r.ptr);
}

void append_integer(std::string& text, long long v) {
  char buf[24];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v);
  text.append(buf, r.ptr);
}

void output_file::commit() {
  if (!f_) throw invalid_argument(path_ + ": output committed twice");
  if (is_stdout()) {
    if (std::fflush(f_) != 0 || std::ferror(f_)) fail("standard output", "cannot write", errno);
    f_ = nullptr;
    return;
  }
  std::FILE* f = std::exchange(f_, nullptr);
  bool ok = std::fflush(f) == 0 && !std::ferror(f);
  int err = ok ? 0 : errno;
  if (raw_) {  // the gzip stream's end (gzclose), then the file under it
    if (std::fclose(f) != 0 && ok) ok = false, err = errno;
    f = std::exchange(raw_, nullptr);
  }
  if (ok && !temp_.empty() && ::fsync(::fileno(f)) != 0 && errno != EINVAL) ok = false, err = errno;
  if (std::fclose(f) != 0 && ok) ok = false, err = errno;
  if (ok && !temp_.empty() && together) {  // renamed with the run's other files
    together->held_.push_back({path_, std::exchange(temp_, std::string()), target_, std::move(guard_)});
    return;
  }
  if (ok && !temp_.empty() && std::rename(temp_.c_str(), target_.c_str()) != 0) ok = false, err = errno;
  if (!ok && !temp_.empty()) ::unlink(temp_.c_str());
  guard_.release();
  if (!ok) fail(path_, "cannot write", err);
}

void check_not_an_input(const std::string& output, const std::vector<std::string>& inputs,
                        std::string_view option) {
  if (output == "-") return;
  struct stat out {};
  if (::stat(output.c_str(), &out) != 0) return;  // a new file cannot be an input
  for (const std::string& in : inputs) {
    struct stat st {};
    if (::stat(in.c_str(), &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino)
      throw invalid_argument(std::string(option) + " " + output + " is the input file " + in +
                             "; refusing to overwrite it");
  }
}

namespace {

// One file by two names: the same inode where both exist; else the same path
// once made absolute, with "." / ".." and the links of its existing folders
// resolved (a new file has no inode yet), and a link to no file yet followed
// to the file a write through it makes.
bool same_file(const std::string& first, const std::string& second) {
  if (first == second) return true;
  const std::string a = written_path(first), b = written_path(second);  // dangling links too
  struct stat sa {
  }, sb{};
  const bool ea = ::stat(a.c_str(), &sa) == 0, eb = ::stat(b.c_str(), &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb) return false;
  std::error_code e1, e2;
  const std::filesystem::path ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a, e1), e1);
  const std::filesystem::path cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, e2), e2);
  return !e1 && !e2 && ca == cb;
}

}  // namespace

void check_distinct_outputs(const std::vector<std::pair<std::string_view, std::string>>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string& out = outputs[i].second;
    if (out.empty() || out == "-") continue;
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].second.empty() && outputs[j].second != "-" && same_file(outputs[j].second, out))
        throw invalid_argument(std::string(outputs[j].first) + " and " + std::string(outputs[i].first) +
                               " name the same file " + out);
  }
}

void check_one_standard_output(const std::vector<std::pair<std::string_view, std::string>>& outputs) {
  const std::string_view* first = nullptr;
  for (const auto& [option, file] : outputs) {
    if (file != "-") continue;
    if (first)
      throw invalid_argument(std::string(*first) + " and " + std::string(option) +
                             " both name standard output ('-'); give one of them a file");
    first = &option;
  }
}

}  // namespace perron::io
