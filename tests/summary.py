#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Print the closing line of a test run from meson's own results.

summary.py BUILD_DIR [SETUP]

Reads BUILD_DIR/meson-logs/testlog.json (testlog-SETUP.json for a run of
`meson test --setup SETUP`; one JSON object per test) and
prints one line per test that did not pass, then
`N passed, N failed, N skipped`.  A test that skipped (a GPU test without a
GPU) is counted as skipped, never as passed; expected failures count as
passed, unexpected passes, timeouts and errors as failed.  Exit status is
1 when anything failed or no test ran.
"""
import json
import sys

PASSED = {"OK", "EXPECTEDFAIL"}
SKIPPED = {"SKIP"}


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    setup = sys.argv[2] if len(sys.argv) > 2 else ""
    log = "testlog%s.json" % ("-" + setup if setup else "")
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    try:
        lines = open(build + "/meson-logs/" + log).read().splitlines()
    except OSError as e:
        print("summary: no meson test log (%s)" % e, file=sys.stderr)
        lines = []
    for line in lines:
        if not line.strip():
            continue
        t = json.loads(line)
        result = t.get("result", "ERROR")
        if result in PASSED:
            counts["passed"] += 1
        elif result in SKIPPED:
            counts["skipped"] += 1
            print("skipped: %s" % t["name"])
        else:
            counts["failed"] += 1
            print("FAILED (%s): %s" % (result, t["name"]))
    print("%(passed)d passed, %(failed)d failed, %(skipped)d skipped" % counts)
    return 1 if counts["failed"] or not (counts["passed"] + counts["skipped"]) else 0


if __name__ == "__main__":
    sys.exit(main())
