#!/usr/bin/env bash
# Formats the C sources and headers of the tree with the one clang-format
# the project's .clang-format is tuned for.
#
#   tools/format.sh              format every file we own, in place
#   tools/format.sh FILE|DIR...  only those (directories: the files we own
#                                under them)
#   tools/format.sh --check ...  change nothing: list the files that differ
#                                from the formatter's output, exit 1 if any
#
# Why a pinned binary: clang-format's line breaking changes from release to
# release, and older ones cannot read our .clang-format at all (Debian 12's
# clang-format 14 refuses it), so a check is only fair with one version
# for everybody.
# That version comes from npm, the package clang-format-node, whose tarball
# carries a static-enough clang-format per platform (linux-x64 needs only
# libc and libstdc++).  It is fetched once with `npm pack` (npm on PATH, no
# global install, no root) into .cache/clang-format-VERSION/ (ignored by
# git), and used only if the tarball's sha512 is the one written here and
# the binary says it is that version.  GCG_CLANG_FORMAT=/path/to/binary
# uses another copy, if it says it is the same version.
#
# Which files: *.c and *.h under lib/ gst/ gst-libs/ tests/ bench/
# examples/ tools/ that git tracks or would track (new files count), except
# tests/data/ (fixtures of the layering check, not code of ours).  CUDA
# sources (*.cu) are left out: clang-format parses their launch macros and
# templates badly.
set -euo pipefail

readonly VERSION=22.1.8
readonly PACKAGE=clang-format-node@3.0.7
# npm's integrity for that tarball, sha512-sKNb5UwKBBczEezaz+fCHiqboGJgUFdh
# wuKDn88EU+i0tm6Nqu5Q+2okIpw78Y02Wl4iB8OeHl3EtL3MA+5ZjQ==, in hex:
readonly SHA512=b0a35be54c0a04173311ecdacfe7c21e2a9ba06260505761c2e2839fcf0453e8b4b66e8daaee50fb6a24229c3bf18d365a5e2207c39e1e5dc4b4bdcc03ee598d
readonly DIRS=(lib gst gst-libs tests bench examples tools)

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

die () {
  echo "format.sh: $*" >&2
  exit 2
}

# The platform's directory in the package (bin/cfn-PLATFORM/clang-format).
platform () {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) die "no clang-format $VERSION in $PACKAGE for $(uname -s)" ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "no clang-format $VERSION in $PACKAGE for $(uname -m)" ;;
  esac
  echo "$os-$arch"
}

# True when $1 runs and says it is clang-format $VERSION.
is_pinned () {
  local v
  v=$("$1" --version 2>/dev/null) || return 1
  [[ "$v" == *"clang-format version $VERSION "* ]]
}

# Downloads the package with npm, checks it and leaves the binary at $1.
fetch () {
  local dest=$1 plat tgz
  command -v npm >/dev/null ||
    die "npm is needed once to fetch clang-format $VERSION (Debian: apt-get install npm, or bash tools/install-deps.sh)"
  plat=$(platform)
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcg-format.XXXXXX")
  # fetch runs in the $(clang_format) subshell: this fires when it ends.
  trap 'rm -rf "$tmp"' EXIT
  echo "format.sh: fetching clang-format $VERSION ($PACKAGE) with npm" >&2
  # A private npm cache: nothing is left in ~/.npm.
  (cd "$tmp" && npm pack --silent --cache "$tmp/npm-cache" "$PACKAGE" >/dev/null) ||
    die "npm pack $PACKAGE failed (is the npm registry reachable?)"
  tgz=$(ls "$tmp"/clang-format-node-*.tgz 2>/dev/null) ||
    die "npm pack left no tarball"
  echo "$SHA512  $tgz" | sha512sum -c --quiet - ||
    die "$PACKAGE's tarball does not have the sha512 pinned in $0"
  tar -xzf "$tgz" -C "$tmp" "package/bin/cfn-$plat/clang-format" ||
    die "$PACKAGE has no clang-format for $plat"
  is_pinned "$tmp/package/bin/cfn-$plat/clang-format" ||
    die "the clang-format in $PACKAGE does not run here or is not $VERSION"
  mkdir -p "$(dirname "$dest")"
  mv "$tmp/package/bin/cfn-$plat/clang-format" "$dest.tmp"
  mv "$dest.tmp" "$dest"
}

# Prints the path of the pinned clang-format, fetching it the first time.
clang_format () {
  local bin=$root/.cache/clang-format-$VERSION/clang-format
  if [ -n "${GCG_CLANG_FORMAT:-}" ]; then
    is_pinned "$GCG_CLANG_FORMAT" ||
      die "GCG_CLANG_FORMAT=$GCG_CLANG_FORMAT is not clang-format $VERSION"
    echo "$GCG_CLANG_FORMAT"
    return
  fi
  is_pinned "$bin" || fetch "$bin"
  echo "$bin"
}

# Lists, NUL-separated, the files we own under the given paths.
owned_files () {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard -- "$@"
  else
    find "$@" \( -name 'build*' -o -name .cache -o -name .wt \) -prune \
      -o -type f -print0
  fi | while IFS= read -r -d '' f; do
    case "$f" in
      tests/data/*) ;;
      *.c | *.h) [ -f "$f" ] && printf '%s\0' "$f" ;;
    esac
  done
}

check=0
if [ "${1:-}" = "--check" ]; then
  check=1
  shift
fi
case "${1:-}" in
  -h | --help)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  -*) die "unknown option $1 (see --help)" ;;
esac
[ $# -gt 0 ] || set -- "${DIRS[@]}"

cf=$(clang_format)
style=--style=file:$root/.clang-format
mapfile -d '' files < <(owned_files "$@")
[ ${#files[@]} -gt 0 ] || die "no C files to format under: $*"

if [ "$check" -eq 0 ]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 50 "$cf" "$style" -i
  exit 0
fi

differ=()
for f in "${files[@]}"; do
  "$cf" "$style" --assume-filename="$f" <"$f" | cmp -s - "$f" || differ+=("$f")
done
if [ ${#differ[@]} -gt 0 ]; then
  echo "format check: ${#differ[@]} of ${#files[@]} files are not formatted (clang-format $VERSION, .clang-format):"
  printf '  %s\n' "${differ[@]}"
  echo "fix: bash tools/format.sh ${differ[*]}"
  exit 1
fi
echo "format check: ${#files[@]} files formatted (clang-format $VERSION)"
