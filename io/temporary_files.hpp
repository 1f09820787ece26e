// Temporaries that a signal must not leave behind: the output files' and the
// cache entries' (io::output_file, write_atomically in io/cache.cpp) are
// registered while they exist; an app that calls remove_temporaries_on_signal
// removes them on SIGINT, SIGTERM, SIGHUP, SIGPIPE or SIGQUIT, then dies of the
// signal as before. Ctrl-C during a write left '.out.tsv.tmp-XXXXXX' beside
// the output and 25 MB '.perron-cache.tmp.PID.N' files in the cache folder
// that no later run removed.
#pragma once

#include <string>

namespace perron::io {

// What a signal removes: a file (unlink), or a folder of a run's own
// (rmdir, after every file: read-bench's fresh cache folder, whose entries are
// registered as files while they exist).
enum class temporary_kind { file, folder };

// A registered temporary (a slot of a fixed table, so that the handler reads
// no heap); `path` is removed by a signal until release() or destruction.
// Past the table's slots (64 at once) a temporary is simply not registered.
class temporary_guard {
 public:
  temporary_guard() = default;
  explicit temporary_guard(const std::string& path, temporary_kind kind = temporary_kind::file);
  ~temporary_guard() { release(); }
  temporary_guard(const temporary_guard&) = delete;
  temporary_guard& operator=(const temporary_guard&) = delete;
  temporary_guard(temporary_guard&& o) noexcept : slot_(o.slot_) { o.slot_ = -1; }
  temporary_guard& operator=(temporary_guard&& o) noexcept;
  // The file is no temporary any more (renamed into place, or removed).
  void release();

 private:
  int slot_ = -1;
};

// Installs the handler for SIGINT, SIGTERM, SIGHUP, SIGPIPE and SIGQUIT where each is
// at its default (a caller's own handler, Python's SIGINT, is left alone).
// The apps call it once at start (apps/common/app.cpp); a library user that
// wants the same calls it too.
void remove_temporaries_on_signal();

}  // namespace perron::io
