// output_file: atomic replacement of a file by rename(2) within one folder.
#include "io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
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

}  // namespace

output_file::output_file(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw invalid_argument("an output file name is empty");
  if (is_stdout()) {
    f_ = stdout;
    return;
  }
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw io_error(path_, "is a directory");
  // A hidden name in the same folder: rename() is atomic only within one file system.
  std::string pattern = folder_of(path_) + "." + base_of(path_) + ".tmp-XXXXXX";
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) fail(path_, "cannot create a file in its folder", errno);
  temp_ = pattern;
  // mkstemp makes the file 0600; an output gets the usual 0666 & ~umask.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  f_ = ::fdopen(fd, "wb");
  if (!f_) {
    const int err = errno;
    ::close(fd);
    ::unlink(temp_.c_str());
    fail(path_, "cannot open for writing", err);
  }
  static thread_local char buffer[1 << 16];
  std::setvbuf(f_, buffer, _IOFBF, sizeof buffer);
}

output_file::~output_file() {
  if (is_stdout() || !f_) return;
  std::fclose(f_);
  ::unlink(temp_.c_str());
}

void output_file::write(std::string_view bytes) {
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size())
    fail(is_stdout() ? std::string("standard output") : path_, "cannot write", errno);
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
  if (ok && ::fsync(::fileno(f)) != 0 && errno != EINVAL) ok = false, err = errno;
  if (std::fclose(f) != 0 && ok) ok = false, err = errno;
  if (ok && std::rename(temp_.c_str(), path_.c_str()) != 0) ok = false, err = errno;
  if (!ok) {
    ::unlink(temp_.c_str());
    fail(path_, "cannot write", err);
  }
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

}  // namespace perron::io
