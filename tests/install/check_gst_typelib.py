#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The installed GcgGst-1.0 typelib, as a Python application uses it.

check_gst_typelib.py PREFIX [--plugin]

Run with GI_TYPELIB_PATH and LD_LIBRARY_PATH pointing into the installed
tree under PREFIX (tests/install/install-test.py sets them).  Through
PyGObject only (no ctypes): attaches a tensor meta, a batch meta, a
params meta and a results meta to a buffer, reads each back through
GcgGst, and checks that the typelib and libgcg-gst-1.0 came from PREFIX.  With --plugin (and
GST_PLUGIN_PATH_1_0 set to the installed plugin and the system's), also
reads the tensor meta cudagraphpreprocess attached to its output: the
plugin and GcgGst share one meta type.
Exit status 0 on success, 77 when PyGObject or a typelib this needs is
missing, 1 with a message otherwise.
"""
import os
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("Gcg", "1.0")
    gi.require_version("GcgGst", "1.0")
    from gi.repository import Gcg, GcgGst, Gst  # noqa: E402
except (ImportError, ValueError) as e:
    print("skip: %s" % e)
    sys.exit(77)


def check(cond, what):
    if not cond:
        sys.exit("check failed: " + what)


def tensor_meta(buf):
    meta = GcgGst.buffer_add_tensor_meta(buf)
    meta.width, meta.height, meta.batch, meta.n_items = 64, 32, 2, 1
    item = meta.get_item(0)
    item.roi_x, item.roi_width, item.roi_id = 5, 40, 7
    got = GcgGst.buffer_get_tensor_meta(buf)
    check(got is not None, "buffer_get_tensor_meta() found the meta")
    check((got.width, got.height, got.batch, got.n_items) == (64, 32, 2, 1),
          "tensor meta fields read back: %r"
          % ((got.width, got.height, got.batch, got.n_items),))
    check(got.device_id == -1 and got.memory == 0,
          "a new tensor meta says system memory")
    check(got.meta.info.api == GcgGst.tensor_meta_api_get_type(),
          "tensor meta API type")
    item = got.get_item(0)
    check((item.roi_x, item.roi_width, item.roi_id) == (5, 40, 7),
          "tensor meta item 0 read back")
    check(got.get_item(1) is None, "no item past n_items")
    check(got.get_tensor(0) is None, "no tensor when n_tensors is 0")
    print("GcgGst.TensorMeta: %dx%d, batch %d"
          % (got.width, got.height, got.batch))


def batch_meta(buf):
    check(GcgGst.buffer_get_batch_meta(buf) is None,
          "no batch meta before one is added")
    meta = GcgGst.buffer_add_batch_meta(buf, 3)
    meta.n_sources = 1
    src = meta.get_source(0)
    src.width, src.height, src.n_items = 320, 240, 3
    meta.get_item(2).roi_id = 9
    meta.get_item(2).scale_x = 2.5
    got = GcgGst.buffer_get_batch_meta(buf)
    check(got is not None, "buffer_get_batch_meta() found the meta")
    check((got.n_items, got.n_allocated, got.n_sources) == (3, 3, 1),
          "batch meta fields read back: %r"
          % ((got.n_items, got.n_allocated, got.n_sources),))
    check(got.meta.info.api == GcgGst.batch_meta_api_get_type(),
          "batch meta API type")
    src = got.get_source(0)
    check((src.width, src.height, src.n_items, src.pad_name)
          == (320, 240, 3, None), "batch meta source 0 read back")
    check(got.get_source(1) is None, "no source past n_sources")
    item = got.get_item(2)
    check((item.roi_id, item.scale_x) == (9, 2.5),
          "batch meta item 2 read back")
    check(got.get_item(3) is None, "no item past n_items")
    print("GcgGst.BatchMeta: %d items, %d source" % (got.n_items,
                                                     got.n_sources))


def params_meta(buf):
    values = Gst.Structure.new_from_string("values, gamma=(double)2.0")
    check(GcgGst.buffer_add_params_meta(buf, values) is not None,
          "buffer_add_params_meta() attached the meta")
    params = Gcg.FrameParams.new()
    params.gamma = 1.0
    params.gain = 0.75
    GcgGst.apply_params_meta(None, buf, params)
    check(params.gamma == 2.0 and params.gain == 0.75,
          "params meta applied: gamma %r gain %r"
          % (params.gamma, params.gain))
    print("GcgParamsMeta: gamma %.1f applied" % params.gamma)


def results_meta(buf):
    r = Gcg.Result()
    r.x, r.y, r.width, r.height, r.confidence, r.label = 1, 2, 3, 4, 0.5, 7
    meta = GcgGst.buffer_add_results(buf, Gcg.PostprocessKind.DETECT, [r],
                                     [], [])
    check(meta is not None, "buffer_add_results() attached the meta")
    got = GcgGst.buffer_get_results_meta(buf)
    check(got is not None and got.get_n_results() == 1,
          "buffer_get_results_meta() found one result")
    check(got.get_result(0).height == 4 and got.get_label_name(0)
          == "class-7", "results meta read back")
    print("GcgGst.ResultsMeta: %d result, %s, analytics %s"
          % (got.get_n_results(), got.get_label_name(0),
             GcgGst.results_have_analytics()))


def plugin_tensor_meta():
    """The meta of a real output: the plugin registered the type through
    the same libgcg-gst-1.0, so GcgGst finds it."""
    pipeline = Gst.parse_launch(
        "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,"
        "height=48 ! cudagraphpreprocess backend=cpu width=32 height=16 "
        "! appsink name=sink sync=false")
    pipeline.set_state(Gst.State.PLAYING)
    sample = pipeline.get_by_name("sink").emit("try-pull-sample",
                                               10 * Gst.SECOND)
    pipeline.set_state(Gst.State.NULL)
    check(sample is not None, "cudagraphpreprocess gave a buffer")
    meta = GcgGst.buffer_get_tensor_meta(sample.get_buffer())
    check(meta is not None, "the output carries a GstCudaGraphTensorMeta")
    check((meta.width, meta.height, meta.n_items) == (32, 16, 1),
          "output tensor meta: %r"
          % ((meta.width, meta.height, meta.batch, meta.n_items),))
    item = meta.get_item(0)
    check((item.roi_width, item.roi_height) == (64, 48),
          "the item was cut from the whole frame: %dx%d"
          % (item.roi_width, item.roi_height))
    print("cudagraphpreprocess output: GcgGst.TensorMeta %dx%d, item 0 "
          "from a %dx%d region" % (meta.width, meta.height, item.roi_width,
                                   item.roi_height))


def loaded_from(prefix):
    with open("/proc/self/maps") as maps:
        libs = {line.split()[-1] for line in maps
                if "libgcg-gst-1.0.so" in line}
    where = {"typelib": list(GcgGst.__path__),
             "libgcg-gst-1.0": sorted(libs)}
    for what, paths in where.items():
        paths = [os.path.realpath(p) for p in paths]
        if not paths or not all(p.startswith(prefix + "/") for p in paths):
            sys.exit("%s not loaded from %s: %s" % (what, prefix, paths))
        print("%s: %s" % (what, paths[0]))


def main():
    prefix = os.path.realpath(sys.argv[1])
    Gst.init(None)
    buf = Gst.Buffer.new_allocate(None, 64, None)
    tensor_meta(buf)
    batch_meta(buf)
    params_meta(buf)
    results_meta(buf)
    if "--plugin" in sys.argv[2:]:
        plugin_tensor_meta()
    loaded_from(prefix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
