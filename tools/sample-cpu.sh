#!/usr/bin/env bash
# Where a running program spends its CPU, on a host without perf: per
# thread CPU time from /proc over a window, then stack samples taken by
# attaching cuda-gdb (the GPU hosts have it; gdb works the same) a few
# times.  Each attach stops the program briefly, so the samples say where
# threads are, not how fast they go: read them with the /proc figures.
#   tools/sample-cpu.sh OUT_DIR SAMPLES -- COMMAND [ARGS...]
# Writes OUT_DIR/threads.txt (CPU seconds per thread over 3 s),
# OUT_DIR/stacks.txt (all samples) and OUT_DIR/top.txt (innermost named
# frames of running threads, counted).
set -uo pipefail
out=$1; samples=$2; shift 3
mkdir -p "$out"
"$@" > "$out/program.log" 2>&1 &
pid=$!
sleep "${SAMPLE_DELAY:-4}"

ticks() {  # tid utime+stime comm, one line per thread
  for t in /proc/$pid/task/*; do
    [ -r "$t/stat" ] || continue
    # comm may hold spaces: fields after the closing parenthesis.
    read -r stat < "$t/stat"
    rest=${stat##*) }
    set -- $rest
    echo "$(basename "$t") $((${12} + ${13})) $(cat "$t/comm")"
  done
}
ticks > "$out/t0"; sleep 3; ticks > "$out/t1"
hz=$(getconf CLK_TCK)
join <(sort "$out/t0") <(sort "$out/t1") \
  | awk -v hz="$hz" '{ printf "%-8s %-20s %.2f s\n", $1, $3, ($4 - $2) / hz }' \
  | sort -k3 -nr > "$out/threads.txt"

gdb=$(command -v cuda-gdb || command -v gdb || echo /usr/local/cuda/bin/cuda-gdb)
: > "$out/stacks.txt"
for i in $(seq "$samples"); do
  kill -0 "$pid" 2>/dev/null || break
  timeout 60 "$gdb" -q -batch -p "$pid" -ex "set pagination off" \
    -ex "thread apply all bt 12" >> "$out/stacks.txt" 2>/dev/null
  sleep 0.5
done
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
# The innermost frame of each thread that is not parked in a wait.
awk '/^Thread /{ first = 1; next } first && /^#/ {
       sub(/^#[0-9]+ +(0x[0-9a-f]+ in )?/, ""); sub(/ \(.*/, "");
       print; first = 0 }' "$out/stacks.txt" \
  | grep -vE "^(syscall|__futex|futex|poll|__poll|__GI___poll|epoll_wait|nanosleep|clock_nanosleep|__GI___poll|ioctl|__GI___ioctl|pthread_cond|__pthread_cond|g_cond_wait|__lll_lock_wait|read|__libc_read|select)" \
  | sort | uniq -c | sort -nr > "$out/top.txt"
# Whole stacks, counted by their three innermost frames, for context.
awk '/^Thread /{ if (s != "") print s; s = ""; n = 0; next }
     /^#/ { if (n < 4) { f = $0; sub(/^#[0-9]+ +(0x[0-9a-f]+ in )?/, "", f);
             sub(/ \(.*/, "", f); s = s (n ? " < " : "") f; n++ } }
     END { if (s != "") print s }' "$out/stacks.txt" \
  | sort | uniq -c | sort -nr > "$out/stacks-top.txt"
# For threads not parked in a wait: the innermost frame and the innermost
# frame of ours (gcg_*, gst_cuda_graph_*) under it, counted.
awk '/^Thread /{ if (inner != "") print inner " @ " (ours == "" ? "-" : ours);
       inner = ""; ours = ""; next }
     /^#/ { f = $0; sub(/^#[0-9]+ +(0x[0-9a-f]+ in )?/, "", f); sub(/ \(.*/, "", f);
       if (inner == "") inner = f;
       if (ours == "" && f ~ /^(gcg|gst_cuda_graph|fence|submit|stage|map_output|frame_done|finish_output)/) ours = f }
     END { if (inner != "") print inner " @ " (ours == "" ? "-" : ours) }' "$out/stacks.txt" \
  | grep -vE "^(syscall|__futex|futex|poll|__poll|__GI___poll|epoll_wait|nanosleep|clock_nanosleep|pthread_cond|g_cond_wait|__lll_lock_wait|select) " \
  | sort | uniq -c | sort -nr > "$out/ours.txt"
rm -f "$out/t0" "$out/t1"
cat "$out/threads.txt"; head -30 "$out/ours.txt"
