# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A frame's results (issue 35) as Python values, through PyGObject.

`cudagraphpreprocess postprocess=classify|detect model=...` attaches a
`GstCudaGraphResultsMeta` (gst-libs/gcg-gst/gstcudagraphresultsmeta.h)
to every output buffer: the postprocess's detections (boxes in
source-frame pixels) or each item's top-k classes.  This module reads it
through the GcgGst typelib, so no C runs per frame beyond the meta's
accessors::

    sample = appsink.emit("pull-sample")
    for r in gcg.results.from_buffer(sample.get_buffer()):
        print(r.label, r.confidence, r.x, r.y, r.width, r.height, r.roi_id)

`from_buffer()` returns None for a buffer without the meta (no
postprocess), and a list (maybe empty: nothing found) otherwise.  Built
against GStreamer 1.24 or newer, the same results are also in GStreamer's
`GstAnalyticsRelationMeta` (`GstAnalytics` in PyGObject).
"""

from collections import namedtuple

Result = namedtuple(
    "Result",
    "x y width height confidence label label_index item roi_id roi_type",
)
Result.__doc__ = """One result: a detection's box (source-frame pixels) or,
for a classification, the item's region; `label` is the class name
(the labels file's line, or "class-N"), `label_index` its index, `item`
the ROI or batch slot it came from, `roi_id` that ROI's
GstVideoRegionOfInterestMeta id (-1: the whole frame) and `roi_type` its
type (None without one)."""


def _gcggst():
    import gi

    gi.require_version("GcgGst", "1.0")
    from gi.repository import GcgGst

    return GcgGst


def _quark_name(quark):
    from gi.repository import GLib

    return GLib.quark_to_string(quark) if quark else None


def from_buffer(buffer):
    """The results of a Gst.Buffer (PyGObject) as a list of `Result`, or
    None when the buffer has no GstCudaGraphResultsMeta."""
    gcggst = _gcggst()
    meta = gcggst.buffer_get_results_meta(buffer)
    if meta is None:
        return None
    out = []
    for i in range(meta.get_n_results()):
        r = meta.get_result(i)
        item = meta.get_item(r.item)
        out.append(Result(
            r.x, r.y, r.width, r.height, r.confidence,
            meta.get_label_name(i), r.label, r.item,
            item.roi_id if item is not None else -1,
            _quark_name(item.roi_type) if item is not None else None))
    return out


def kind(buffer):
    """The postprocess that gave the buffer's results (a
    Gcg.PostprocessKind value), or None without them."""
    meta = _gcggst().buffer_get_results_meta(buffer)
    return None if meta is None else meta.kind
