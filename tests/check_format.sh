#!/usr/bin/env bash
# The ctest `clang_format`: every C++/CUDA file of the repository must be as
# clang-format 14 writes it with the repository's .clang-format. Lists the
# files that differ (fix them with `clang-format -i FILE`). Exits 77 (ctest:
# skipped) when clang-format 14 is not installed: other versions format
# differently.
# Usage: tests/check_format.sh SOURCE_DIR
set -euo pipefail
cd "$1"
if [ ! -f .clang-format ]; then
  echo "clang_format: no .clang-format in $PWD"
  exit 1
fi

tool=""
for candidate in clang-format-14 clang-format; do
  if command -v "$candidate" >/dev/null &&
    "$candidate" --version | grep -Eq 'version 14\.'; then
    tool=$candidate
    break
  fi
done
if [ -z "$tool" ]; then
  echo "clang_format: clang-format 14 not found; skipped"
  exit 77
fi

# The tracked files when this is a git checkout, else every such file of the
# project's folders (a copy of the tree without .git, as on the GPU machine).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.hpp' '*.cu' '*.cuh' ':!:tests/fuzz/corpus/**')
else
  mapfile -t files < <(find core kernels io solvers apps bench tests examples \
    \( -path tests/fuzz/corpus -prune \) -o -type f \
    \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) -print 2>/dev/null | sort)
fi

differ=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue  # deleted in the work tree but still in the index
  "$tool" --style=file --dry-run -Werror "$f" >/dev/null 2>&1 || differ+=("$f")
done
echo "clang_format: ${#files[@]} files checked with $tool"
if [ ${#differ[@]} -gt 0 ]; then
  echo "${#differ[@]} files differ from .clang-format (run clang-format -i on them):"
  printf '  %s\n' "${differ[@]}"
  exit 1
fi
