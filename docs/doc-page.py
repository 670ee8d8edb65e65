#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Copies a docs/ page for gi-docgen's extra content.

doc-page.py IN.md OUT.md

gi-docgen takes a page's title from a `Title:` line at its top, which
would show as text on GitHub, so the pages in docs/ start with a heading
instead and this adds the line on the way.  Links to sibling pages
(`(frame-chain.md)`, `(frame-chain.md#section)`) become links to the
.html pages gi-docgen writes next to the reference, and links to the
index, docs/README.md, to the reference's own index.
"""
import re
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        text = f.read()
    heading = re.search(r"^# (.+)$", text, re.M)
    if heading is None:
        sys.exit("%s: no '# ' heading to take the title from" % src)
    # docs/README.md is the index: the reference's own index stands for it.
    text = re.sub(r"\]\(README\.md(#[\w-]*)?\)", "](index.html)", text)
    text = re.sub(r"\]\(([\w.-]+)\.md(#[\w-]*)?\)", r"](\1.html\2)", text)
    with open(dst, "w", encoding="utf-8") as f:
        f.write("Title: %s\n\n%s" % (heading.group(1), text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
