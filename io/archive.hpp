// SuiteSparse downloads (name.tar.gz holding name/name.mtx and sometimes
// extra files) read directly through libarchive, without unpacking to disk.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "text_input.hpp"

namespace perron::io::detail {

// True for *.tar.gz, *.tgz, *.tar, *.zip and tars compressed by bzip2, xz
// or zstd (*.tar.bz2, *.tbz2, *.tar.xz, *.txz, *.tar.zst, ...).
bool is_archive_name(const std::string& path);

// How a file's text is packed, told once by its content (its first 512
// bytes, inflated where gzip) and its name, so that every reader takes the
// same path: a SuiteSparse download saved as "flickr" or "download.gz" is
// still a gzipped tar, a text holding "ustar" at byte 257 still a text
// (is_tar checks the header's checksum), a text opening with "BZh1" still a
// text (has_packed_magic checks the block's magic).
enum class packing {
  plain,     // the text itself; also what is no regular file (a pipe, sniffed in memory) or cannot be opened
  gzip,      // one gzip stream of a text (io/inflate.hpp, window by window)
  tar,       // a tar; also a file named as an archive whose content says nothing else (libarchive says why)
  gzip_tar,  // a gzipped tar (SuiteSparse's .tar.gz)
  zip,       // a zip (Network Repository's .zip)
  compressed,  // a bzip2, xz or zstd stream: a text compressed whole, or a tar so compressed (KONECT's
               // .tar.bz2)
};
packing packing_of(const std::string& path);

// tar, gzip_tar and zip: read_archive_matrix picks the member (a compressed
// stream goes to read_packed, which does the same for a tar inside).
inline bool is_archive(packing k) { return k == packing::tar || k == packing::gzip_tar || k == packing::zip; }

// A compressed file's text (packing::compressed) through libarchive: a
// tar's main member, chosen as read_archive_matrix chooses it (`member` its
// path), or the whole file's text (`member` left empty). not_supported
// without libarchive.
text_buffer read_packed(const std::string& path, std::string& member, read_stats* stats = nullptr);

// read_packed over bytes already in memory (a tar or a zip that came
// through a pipe, inflated where it was gzip, or a bzip2, xz or zstd stream,
// whose first bytes are gone from the pipe); `name` is what errors call it.
text_buffer read_archive_matrix_in(const text_buffer& bytes, const std::string& name, std::string& member);

// The whole text of a file that holds one vector or list (heat1d's --ic
// file:, pagerank's --initial, --personalize and --sources files): plain,
// gzip, or compressed whole by bzip2, xz or zstd, from a file or a pipe (the
// latter three were parsed as text: "'BZh91AY&SY...' is not a finite
// number"). A tar or zip, plain or compressed, holds files, not `what`
// ("a profile"): io_error. not_supported for bzip2, xz and zstd without
// libarchive.
text_buffer read_single_text(const std::string& path, const std::string& what);

// Reads the graph's member: of the .mtx members, the one named like the
// archive (flickr.tar.gz -> .../flickr.mtx), else the only one; where there is
// none, so of the graph files (.graphml, .gml, .net, .paj: karate.zip ->
// karate.gml, beside karate.txt), then of the edge lists
// (detail::edge_list_extensions, or KONECT's out.NAME). parse_error listing the members
// when there is none or the choice is ambiguous; io_error when the archive is
// unreadable or truncated; not_supported when built without libarchive.
// `member` receives the chosen member's path inside the archive.
text_buffer read_archive_matrix(const std::string& path, std::string& member, read_stats* stats = nullptr);

// The member of the archive at `path` whose path in it is `member`, read
// whole; nullopt where there is none (or `path` is no regular file, or perron
// was built without libarchive). For a member read beside the graph's:
// Netzschleuder's nodes.csv beside edges.csv.
std::optional<text_buffer> read_archive_member(const std::string& path, const std::string& member);

// The same member as windows of about `window` bytes of whole lines, inflated
// as they are asked for (size_hint(): the member's size from its header),
// when read_archive_matrix would pick it without reading further: it is
// named like the archive and no other .mtx comes before it. Else (or without
// libarchive, or when the archive cannot be opened) nullptr: the caller reads
// it with read_archive_matrix, which reports why. io_error from next() for a
// corrupt or truncated archive.
std::unique_ptr<text_windows> open_archive_windows(const std::string& path, std::size_t window,
                                                   std::string& member);

// The first `bytes` of the text read_archive_matrix would take where it is an
// edge list (the first edge-list member: KONECT's out.NAME), or of a file
// compressed whole (read_packed's text); "" where a .mtx or graph file comes first,
// where there is none, without libarchive, or where anything fails (a hint's
// input: the load reports what is wrong). Inflates no more than it returns
// plus the members before it.
std::string edge_list_head(const std::string& path, std::size_t bytes);

}  // namespace perron::io::detail
