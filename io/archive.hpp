// SuiteSparse downloads (name.tar.gz holding name/name.mtx and sometimes
// extra files) read directly through libarchive, without unpacking to disk.
#pragma once

#include <string>

#include "io/text_input.hpp"

namespace perron::io::detail {

// True for *.tar.gz, *.tgz (and *.tar).
bool is_archive_name(const std::string& path);

// Reads the main .mtx member: the one named like the archive (flickr.tar.gz
// -> .../flickr.mtx), else the only .mtx. parse_error listing the members
// when there is none or the choice is ambiguous; io_error when the archive is
// unreadable or truncated; not_supported when built without libarchive.
// `member` receives the chosen member's path inside the archive.
text_buffer read_archive_matrix(const std::string& path, std::string& member, read_stats* stats = nullptr);

}  // namespace perron::io::detail
