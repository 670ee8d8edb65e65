#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Print the closing line of a test run from meson's own results.

summary.py [--no-skips] BUILD_DIR [SETUP]

Reads BUILD_DIR/meson-logs/testlog.json (testlog-SETUP.json for a run of
`meson test --setup SETUP`; one JSON object per test program, with the
program's stdout) and prints one line per program that did not pass and
per skipped subtest, then, as the last line,
`N passed, N failed, N skipped`.

How the last line counts: every test program is counted exactly once.
- failed: meson's result is a failure, an unexpected pass, a timeout or
  an error;
- skipped: the program skipped as a whole (TAP `1..0 # SKIP`, exit status
  77), or it passed but skipped one subtest or more (TAP `ok N ... # SKIP`
  lines in its stdout): it did not run everything, so it is not "passed";
- passed: it passed (expected failures included) and skipped nothing.
Each skipped program is named on a `skipped: PROGRAM` line and each skipped
subtest on a `skipped subtest: PROGRAM: SUBTEST (REASON)` line above the
last line, so a partial skip can never hide inside "passed".

Exit status 1 when anything failed, when nothing passed (a run where
everything skipped is not a success), or, with --no-skips or
GCG_TEST_REQUIRE_GPU set (the GPU host's runner), when anything skipped
that GCG_TEST_ALLOW_SKIP (a regular expression of test names) does not
match.
"""
import json
import os
import re
import sys

PASSED = {"OK", "EXPECTEDFAIL"}
SKIPPED = {"SKIP"}
# "ok 3 /gst/convert/x # SKIP built without gstreamer-cuda"
TAP_SKIP = re.compile(r"^ok\b\s*(\d*)\s*(?:-\s*)?(.*?)\s*#\s*skip\b\s*(.*)$",
                      re.IGNORECASE)


def skipped_subtests(stdout):
    """(subtest, reason) of every TAP `ok ... # SKIP` line in @stdout."""
    found = []
    for line in (stdout or "").splitlines():
        m = TAP_SKIP.match(line.strip())
        if m:
            found.append((m.group(2) or "#" + m.group(1),
                          m.group(3) or "no reason given"))
    return found


def count(lines):
    """The counts of a testlog's lines, printing the detail lines."""
    counts = {"passed": 0, "failed": 0, "skipped": 0, "skipped_names": []}
    for line in lines:
        if not line.strip():
            continue
        try:
            t = json.loads(line)
        except ValueError:
            # A log two runs wrote at once, or cut short: not a pass.
            counts["failed"] += 1
            print("FAILED (unreadable log line): %.60s" % line)
            continue
        result = t.get("result", "ERROR")
        name = t.get("name", "?")
        if result in PASSED:
            subs = skipped_subtests(t.get("stdout"))
            for sub, why in subs:
                print("skipped subtest: %s: %s (%s)" % (name, sub, why))
            counts["skipped" if subs else "passed"] += 1
            if subs:
                counts["skipped_names"].append(name)
        elif result in SKIPPED:
            counts["skipped"] += 1
            counts["skipped_names"].append(name)
            print("skipped: %s" % name)
        else:
            counts["failed"] += 1
            print("FAILED (%s): %s" % (result, name))
    return counts


def main(argv):
    no_skips = "--no-skips" in argv or os.environ.get(
        "GCG_TEST_REQUIRE_GPU", "") not in ("", "0")
    args = [a for a in argv if a != "--no-skips"]
    build = args[0] if args else "build"
    setup = args[1] if len(args) > 1 else ""
    log = "testlog%s.json" % ("-" + setup if setup else "")
    try:
        lines = open(build + "/meson-logs/" + log).read().splitlines()
    except OSError as e:
        print("summary: no meson test log (%s)" % e, file=sys.stderr)
        lines = []
    counts = count(lines)
    # Skips a host cannot help (GCG_TEST_ALLOW_SKIP, a regular expression
    # of test names: the two-GPU test on a one-GPU host) stay skips, and
    # counted so, but do not fail a --no-skips run.
    allow = os.environ.get("GCG_TEST_ALLOW_SKIP", "")
    refused = [n for n in counts["skipped_names"]
               if not (allow and re.search(allow, n))]
    if not counts["passed"]:
        print("summary: no test passed")
    if no_skips and refused:
        print("summary: %d skipped, and skips are failures here "
              "(--no-skips or GCG_TEST_REQUIRE_GPU)" % len(refused),
              file=sys.stderr)
    print("%(passed)d passed, %(failed)d failed, %(skipped)d skipped" % counts)
    bad = counts["failed"] or not counts["passed"] or (no_skips and refused)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
