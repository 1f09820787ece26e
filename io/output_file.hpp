// Every file perron writes (ranks, JSON, plots, snapshots, matrices) goes
// through output_file: the bytes go to a temporary file in the target's own
// folder, which commit() renames over the target in one step. An error or an
// interrupted run therefore never leaves a truncated file, and never damages
// a file that was there before. "-" names standard output, as Unix tools read it.
// A target that exists and is no regular file (/dev/null, a named pipe), or
// names one of this process's descriptors (/dev/stdout, /dev/fd/N), is written
// in place: a rename would replace the node itself. A symbolic link's file is
// replaced, not the link. A name ending in .gz (any case) is written gzip-
// compressed (zlib, level 6), so `-o ranks.tsv.gz` and `--output-matrix
// m.mtx.gz` are what their names say (they were plain text under a .gz name).
#pragma once

#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "temporary_files.hpp"

namespace perron::io {

class output_file {
 public:
  // Creates the temporary file beside `path` (io_error naming `path` if the
  // folder is missing or not writable); "-" writes to stdout directly.
  explicit output_file(std::string path);
  ~output_file();  // without commit(): the temporary is removed
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  // The stream to write to (fprintf, fwrite); its errors are caught at commit().
  std::FILE* get() const { return f_; }
  void write(std::string_view bytes);
  // Flushes, syncs and closes the temporary, then renames it over the target
  // (or, under a commit_together of this thread, hands the temporary to it);
  // io_error ("cannot write ...: No space left on device") on any failure,
  // in which case the target is as it was.
  void commit();

  const std::string& path() const { return path_; }
  bool is_stdout() const { return path_ == "-"; }

 private:
  void open_in_place(int fd);  // f_ on fd, no temporary (io_error naming path_ for fd < 0)

  void compress_if_named_gz();  // f_ becomes a gzip stream into raw_

  std::string path_, temp_, target_;  // target_: what temp_ is renamed to (a link's file)
  temporary_guard guard_;             // temp_, removed by a signal (io/temporary_files.hpp)
  std::FILE* f_ = nullptr;
  std::FILE* raw_ = nullptr;  // under a .gz name: the file itself, which f_ compresses into
};

// The files of one run, replaced together. While a commit_together lives on
// a thread, an output_file committed on that thread is written whole (flushed,
// synced, closed) but stays in its temporary; commit() then renames every one
// into place. A run whose second output fails (a full disk, --plot into a
// missing folder) leaves the first one's earlier file as it was: 'pagerank g
// -o r.tsv --plot nodir/p.svg' replaced r.tsv, then exited 66. The destructor
// removes what was not committed. Standard output and files written in place
// (a device, a pipe) are not held: their bytes are out when written.
class commit_together {
 public:
  commit_together();
  ~commit_together();
  commit_together(const commit_together&) = delete;
  commit_together& operator=(const commit_together&) = delete;
  // Renames every held temporary over its target, in the order committed;
  // io_error on the first that fails (the ones after it are removed).
  void commit();

 private:
  friend class output_file;
  struct held {
    std::string path, temp, target;
    temporary_guard guard;
  };
  std::vector<held> held_;
  commit_together* outer_;
};

// Text of many lines (a value per vertex): lines [first, last) formatted by
// `format` into its string, pieces of `lines_per_piece` lines on every core,
// written to `out` in order. The same bytes as a serial loop of fprintf;
// 10^6 lines of "%lld\t%.17g\n" took 150 ms through fprintf on one core.
void write_lines(output_file& out, std::size_t lines,
                 const std::function<void(std::size_t first, std::size_t last, std::string& text)>& format,
                 std::size_t lines_per_piece = std::size_t(1) << 16);
// Appends what printf's "%.*g" (digits) writes of x in the C locale, and "%lld" of v.
void append_g(std::string& text, double x, int digits);
void append_integer(std::string& text, long long v);

// Checks, before a long run, that output_file(path) could write `path` later,
// and leaves nothing behind: io_error for a folder that is missing or not
// writable ("cannot create a file in its folder") or a directory named as the
// file ("is a directory"), by making a temporary beside it and removing it.
// A device, a pipe or standard output is not opened (a pipe's reader would see
// its end); their errors come when written.
void check_output_path(const std::string& path);

// Whether `path` names this process's standard output: "-", /dev/stdout,
// /dev/fd/1 or /proc/self/fd/1 (all written to descriptor 1). An app that
// moves its summary off stdout for "-" does so for these too.
bool names_standard_output(const std::string& path);

// invalid_argument when `output` ("-" excepted) is the same file as one of
// `inputs` (same device and inode, so through links and other spellings too):
// "<option> FILE is the input graph; refusing to overwrite it".
void check_not_an_input(const std::string& output, const std::vector<std::string>& inputs,
                        std::string_view option);

// invalid_argument when two of `outputs` (option, file; empty: not given)
// name one file, by any spelling ("r.tsv", "./r.tsv", a link to it), whether
// it exists yet or not: "<option> and <option> name the same file FILE" (the
// second write would replace the first's). "-" (standard output) is exempt.
void check_distinct_outputs(const std::vector<std::pair<std::string_view, std::string>>& outputs);
// invalid_argument when two of `outputs` name "-" (standard output: both would
// go into one stream): "<option> and <option> both name standard output
// ('-'); give one of them a file".
void check_one_standard_output(const std::vector<std::pair<std::string_view, std::string>>& outputs);

}  // namespace perron::io
