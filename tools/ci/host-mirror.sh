# shellcheck shell=bash
# Sourced by root-making scripts (tools/ci-lane.sh,
# tools/peers/gpu-bundle-126.sh):
# host_mirror prints the first Debian archive URI the host's apt uses
# (deb822 or one-line sources), security archives and CD-ROMs left out.
host_mirror() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
    /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    sed -n -e 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' \
      -e 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\).*/\2/p' "$f"
  done | grep -v -e '-security' -e '^cdrom:' | head -n 1
}
