#!/usr/bin/env bash
# Runs the README's test command (`bash tools/run-tests.sh`) in a fresh
# minimal Debian root, as a user on a new machine would: nothing installed
# beyond `debootstrap --variant=minbase`, so a package that
# tools/install-deps.sh forgets fails here.
#
#   tools/ci-lane.sh DIST [-- EXTRA MESON OPTIONS...]
#   tools/ci-lane.sh DIST --demo   the README's first command instead
#     (`bash tools/demo.sh`), timed from the bare root: it must end with
#     its one-sentence summary
#   tools/ci-lane.sh DIST --prepare ROOT   only makes the root, in ROOT (a
#     new directory): debootstrap, the tree copied in, then
#     tools/install-deps.sh run there, as the test command runs it first;
#     ROOT is kept.  Network and disk bound: .ci/run prepares the lanes'
#     roots while it builds on the host.
#   tools/ci-lane.sh DIST --root ROOT [-- OPTIONS...]   the test command
#     in a root --prepare made, removed after
#     DIST: bookworm (Debian 12, GStreamer 1.22, the baseline),
#           trixie (Debian 13, GStreamer 1.26) or
#           forky (Debian 14 while it is testing, GStreamer 1.28)
#
# Needs root (debootstrap, chroot, bind mounts) and debootstrap.  The root
# is made under ${GCG_LANE_TMP:-/var/tmp} from the mirror the host's apt
# uses (GCG_LANE_MIRROR overrides it), the working tree (tracked files and
# untracked ones git does not ignore, no build folders) is copied to /src
# in it, /proc, /sys and /dev are bound, and the host's CUDA toolkit
# (/usr/local/cuda, where there is one) is bound read-only so the kernels
# still compile.  Nothing is kept between runs: the binds are undone and
# the root removed on every exit (GCG_LANE_KEEP=1 keeps the root, for
# looking into a failure; the binds are undone all the same).
#
# A test that skips there for any reason but the missing GPU (or, on
# Debian 12, GStreamer < 1.26 for the GstTensorMeta test) fails the lane:
# it is a package tools/install-deps.sh does not install.  On Debian 13 the
# GstTensorMeta test must run and pass.
#
# The root's output goes to ${GCG_LANE_LOG:-/var/tmp/gcg-lane-DIST.log}
# (its end is printed too when the lane fails).  Prints `lane DIST (Debian
# N, GStreamer X): N passed, N failed, N skipped, T s` last; exits non-zero
# when anything failed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dist=${1:-}
case "$dist" in
  bookworm) debver=12 ;;
  trixie) debver=13 ;;
  forky) debver=14 ;;
  *) echo "usage: $0 bookworm|trixie|forky [-- MESON OPTIONS...]" >&2; exit 2 ;;
esac
shift
mode=tests
given_root=
case "${1:-}" in
  --demo) mode=demo; shift ;;
  --prepare | --root)
    [ "$1" = --prepare ] && mode=prepare
    given_root=${2:?"ci-lane: $1 needs a directory"}
    shift 2
    ;;
esac
[ "${1:-}" = "--" ] && shift
meson_opts=("$@")
[ "$(id -u)" -eq 0 ] || { echo "ci-lane: needs root (chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null || {
  echo "ci-lane: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }

# host_mirror: the first Debian archive URI the host's apt uses.
# shellcheck source=SCRIPTDIR/ci/host-mirror.sh
. "$here/tools/ci/host-mirror.sh"
mirror=${GCG_LANE_MIRROR:-$(host_mirror)}
[ -n "$mirror" ] || { echo "ci-lane: no mirror in /etc/apt/sources.list*" >&2; exit 2; }

start=$(date +%s)
if [ "$mode" = prepare ]; then
  mkdir "$given_root"  # a new directory: never debootstrap over another
fi
if [ -n "$given_root" ]; then
  root=$(cd "$given_root" && pwd)
else
  root=$(mktemp -d "${GCG_LANE_TMP:-/var/tmp}/gcg-lane-$dist.XXXXXX")
fi
if [ "$mode" = tests ] && [ -n "$given_root" ] && [ ! -d "$root/src/tools" ]; then
  echo "ci-lane: $root is not a root that --prepare made" >&2
  exit 2
fi
mounts=()

cleanup() {
  local rc=$? i
  set +e
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount -R "${mounts[i]}" 2>/dev/null || umount -R -l "${mounts[i]}"
  done
  # Never remove a tree something is still mounted in (the host's /dev).
  if grep -q " $root/" /proc/mounts; then
    echo "ci-lane: $root still has mounts, left in place" >&2
    rc=1
  elif [ "${GCG_LANE_KEEP:-0}" = 1 ] || { [ "$mode" = prepare ] && [ "$rc" -eq 0 ]; }; then
    echo "ci-lane: root kept in $root" >&2
  else
    rm -rf --one-file-system "$root"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bind() {  # bind SRC DEST [ro]
  mkdir -p "$2"
  mount --rbind "$1" "$2"
  mounts+=("$2")
  mount --make-rslave "$2"
  if [ "${3:-}" = ro ]; then
    mount -o remount,bind,ro "$2"
  fi
}

# make_root: the bare root, its apt set up as a user's machine has it,
# and the working tree in /src.
make_root() {
  echo "lane $dist: debootstrap --variant=minbase from $mirror"
  # A debootstrap older than the release knows it by no script of its own:
  # testing's (sid's) serves.
  script=/usr/share/debootstrap/scripts/$dist
  [ -e "$script" ] || script=/usr/share/debootstrap/scripts/sid
  debootstrap --variant=minbase "$dist" "$root" "$mirror" "$script" >"$root.debootstrap.log" 2>&1 || {
    tail -n 20 "$root.debootstrap.log" >&2; rm -f "$root.debootstrap.log"; exit 1; }
  rm -f "$root.debootstrap.log"
  # A user's machine has the point releases' updates too (a stable
  # release's; testing has none).
  [ "$dist" = forky ] || echo "deb $mirror $dist-updates main" >>"$root/etc/apt/sources.list"
  # Testing's Release file is valid for a week only; a mirror's snapshot
  # (CI's) may be older than that, which apt would refuse outright.
  [ "$dist" != forky ] ||
    echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99gcg-lane-snapshot"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  # What dpkg does that a test never reads: fsync per file (minutes of a
  # lane on a VM's disk), manual pages and their index, package docs.
  # The packages installed are the same.
  echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/gcg-lane-unsafe-io"
  printf '%s\n' 'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/doc/*' \
    'path-include=/usr/share/doc/*/copyright' >"$root/etc/dpkg/dpkg.cfg.d/gcg-lane-nodoc"
  # No package's service is started inside the root.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod +x "$root/usr/sbin/policy-rc.d"

  # The working tree as a clone has it: what git tracks or would add.
  mkdir "$root/src"
  (cd "$here" && git ls-files -z --cached --others --exclude-standard |
    xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
    tar --null -T - -cf -) | tar -C "$root/src" -xf -
}

make_root_once() {
  [ -n "$given_root" ] || make_root
  bind /proc "$root/proc"
  bind /sys "$root/sys"
  bind /dev "$root/dev"
  if [ -d /usr/local/cuda ]; then
    bind "$(readlink -f /usr/local/cuda)" "$root/usr/local/cuda" ro
  fi
}

# The whole output goes to the log; the terminal gets the lane's result,
# and the log's end when it failed.
log=${GCG_LANE_LOG:-${GCG_LANE_TMP:-/var/tmp}/gcg-lane-$dist.log}
proxies=()
for v in http_proxy https_proxy no_proxy; do
  [ -n "${!v:-}" ] && proxies+=("$v=${!v}")
done
# in_root COMMAND ARGS...: COMMAND by bash in the root's /src, with a
# clean environment (the host's proxies kept), its output appended to
# the log.
in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    "${proxies[@]}" bash -c "cd /src && $1" lane "${@:2}" </dev/null >>"$log" 2>&1
}
if [ "$mode" = prepare ]; then
  given_root=
  make_root_once
  : >"$log"
  echo "lane $dist: bash tools/install-deps.sh in the root (log: $log)"
  in_root 'bash tools/install-deps.sh' || { tail -n 40 "$log"; exit 1; }
  echo "lane $dist: root prepared in $(($(date +%s) - start)) s"
  exit 0
fi
make_root_once
[ -z "$given_root" ] || echo "lane $dist: in the root --prepare made ($root)"
[ "$mode" = demo ] || [ -n "$given_root" ] || : >"$log"
if [ "$mode" = demo ]; then
  echo "lane $dist: bash tools/demo.sh in the root (log: $log)"
  rc=0
  t0=$(date +%s)
  : >"$log"
  in_root 'bash tools/demo.sh' || rc=$?
  last=$(tail -n 1 "$log")
  case "$last" in
    "cudagraphpreprocess ran "*) ;;
    *) [ "$rc" -ne 0 ] || rc=1; tail -n 40 "$log" ;;
  esac
  echo "lane $dist demo (Debian $debver): $last"
  echo "lane $dist demo: $(($(date +%s) - t0)) s from the bare root (debootstrap not counted)"
  exit "$rc"
fi
echo "lane $dist: bash tools/run-tests.sh in the root (log: $log)"
rc=0
in_root 'bash tools/run-tests.sh build "$@"' "${meson_opts[@]}" || rc=$?
gst=$(chroot "$root" pkg-config --modversion gstreamer-1.0 2>/dev/null || echo "?")
counts=$(tail -n 1 "$log")
case "$counts" in
  *" passed, "*" failed, "*" skipped") ;;
  *) counts="no test counts"; [ "$rc" -ne 0 ] || rc=1 ;;
esac
# Without a GPU only the gpu suite may skip, and the analytics tests
# (GstTensorMeta, the results' GstAnalyticsRelationMeta,
# objectdetectionoverlay drawing them) where GStreamer is older than 1.26:
# any other skip is a package install-deps forgot (a
# user's test run would not check what it should), and the analytics tests
# must run from 1.26 on.
# Test names as meson prints them: "project:suite / name" up to 1.7,
# "suite - project:name" from 1.8 on (Debian 14).
allowed=':gpu / |^gpu - '
[ "$dist" = bookworm ] &&
  allowed="$allowed|:unit / gst-tensor-meta\$|:unit / results-analytics\$|:unit / results-overlay\$"
bad=$(sed -n 's/^skipped: //p' "$log" | grep -Ev -- "$allowed" || true)
if [ -n "$bad" ]; then
  echo "lane $dist: skipped where nothing may skip (a missing install step?):"
  echo "$bad"
  rc=1
fi
# Where GStreamer has the analytics library (1.26, 1.28) its tests must
# run and pass.
for t in gst-tensor-meta results-analytics results-overlay; do
  if [ "$dist" != bookworm ] &&
    ! grep -Eq "(:unit / |unit[^ ]* - [^ ]*:)$t +OK" "$log"; then
    echo "lane $dist: the $t test did not run and pass"
    rc=1
  fi
done
[ "$rc" -eq 0 ] || tail -n 150 "$log"
echo "lane $dist (Debian $debver, GStreamer $gst): $counts, $(($(date +%s) - start)) s"
exit "$rc"
