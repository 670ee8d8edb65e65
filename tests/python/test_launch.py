#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gcg.launch without a GPU or PyTorch: model=FILE taken out of launch
lines (quoting, blanks around `=`, several elements, name= kept or
added, other elements' model= left alone), the refusals of the line and
of model files (missing, a directory, not a zip archive, no PyTorch),
each naming the element and the file, and `python3 -m gcg.launch` runs
on the CPU backend: frames counted on cudagraphpreprocess's src pad, on
cudagraphbatch's src_N pads or its batch metas, at the sinks otherwise,
and an ERROR on the bus ending the run with status 1; a buffer's
GstCudaGraphResultsMeta read back and counted per class.  Standard library
and GStreamer's C libraries only (the ctypes driver); exit status 77 (a
skip) without GStreamer."""
import ctypes
import os
import re
import subprocess
import sys
import tempfile
import unittest
import zipfile

import _pipeline
from gcg import launch, tensor

try:
    _pipeline.init()
except OSError as e:
    _pipeline.skip("no GStreamer library for ctypes (%s)" % e)

try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False


def run_launch(*args, timeout=120):
    """(status, stdout, stderr) of `python3 -m gcg.launch ARGS`."""
    p = subprocess.run([sys.executable, "-m", "gcg.launch"] + list(args),
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def done_frames(out):
    m = re.search(r"^launch: done: (\d+) frames in [0-9.]+ s, [0-9.]+ fps, "
                  r"(\d+|-) us CPU per frame$", out, re.M)
    assert m, "no summary line in:\n" + out
    return int(m.group(1))


class Split(unittest.TestCase):
    """split_models(): the line GStreamer gets and the models found."""

    def check(self, line, want_line, want):
        got_line, specs = launch.split_models(line)
        self.assertEqual(got_line, want_line)
        self.assertEqual([(s.factory, s.name, s.path, s.named) for s in specs],
                         want)

    def test_named_element(self):
        self.check("cudagraphbatch name=b model=det.pt batch-size=2 ! queue "
                   "! fakesink",
                   "cudagraphbatch name=b batch-size=2 ! queue ! fakesink",
                   [("cudagraphbatch", "b", "det.pt", False)])

    def test_name_after_model_and_quoted(self):
        self.check('videotestsrc ! cudagraphpreprocess model=m.pt '
                   'name="pre" ! fakesink',
                   'videotestsrc ! cudagraphpreprocess name="pre" ! fakesink',
                   [("cudagraphpreprocess", "pre", "m.pt", False)])

    def test_unnamed_gets_a_free_name(self):
        # gcglaunch0 is taken by a sink: the element gets gcglaunch1.
        self.check("videotestsrc ! cudagraphpreprocess model=m.pt width=8 ! "
                   "fakesink name=gcglaunch0",
                   "videotestsrc ! cudagraphpreprocess name=gcglaunch1 "
                   "width=8 ! fakesink name=gcglaunch0",
                   [("cudagraphpreprocess", "gcglaunch1", "m.pt", True)])

    def test_quoting(self):
        for value, path in (('"/tmp/a b.pt"', "/tmp/a b.pt"),
                            ("'/tmp/c d.pt'", "/tmp/c d.pt"),
                            (r"/tmp/e\ f.pt", "/tmp/e f.pt"),
                            (r'"/tmp/q\"x.pt"', '/tmp/q"x.pt')):
            with self.subTest(value=value):
                self.check("cudagraphpreprocess name=p model=%s ! fakesink"
                           % value, "cudagraphpreprocess name=p ! fakesink",
                           [("cudagraphpreprocess", "p", path, False)])

    def test_blanks_around_equals(self):
        for spelling in ("model = m.pt", "model= m.pt", "model =m.pt"):
            with self.subTest(spelling=spelling):
                self.check("cudagraphpreprocess name=p %s width=4 ! fakesink"
                           % spelling,
                           "cudagraphpreprocess name=p width=4 ! fakesink",
                           [("cudagraphpreprocess", "p", "m.pt", False)])

    def test_several_elements_and_no_blanks_around_bang(self):
        self.check("videotestsrc!cudagraphpreprocess model=a.pt!fakesink "
                   "videotestsrc ! cudagraphpreprocess name=x model=b.pt ! "
                   "fakesink cudagraphbatch model=c.pt batch-size=1 ! "
                   "fakesink videotestsrc ! b.sink_0",
                   "videotestsrc!cudagraphpreprocess name=gcglaunch0!fakesink "
                   "videotestsrc ! cudagraphpreprocess name=x ! fakesink "
                   "cudagraphbatch name=gcglaunch1 batch-size=1 ! fakesink "
                   "videotestsrc ! b.sink_0",
                   [("cudagraphpreprocess", "gcglaunch0", "a.pt", True),
                    ("cudagraphpreprocess", "x", "b.pt", False),
                    ("cudagraphbatch", "gcglaunch1", "c.pt", True)])

    def test_others_left_alone(self):
        # Another element's model=, caps that say model=, a quoted string
        # that holds one, an element without a model, pad references.
        line = ('videotestsrc ! video/x-raw,model=3 ! somefilter model=x.pt '
                '! cudagraphpreprocess name=p ! "video/x-raw, model=y.pt" ! '
                'fakesink b.src_0 ! queue')
        self.check(line, line, [])

    def test_home_expanded(self):
        _, specs = launch.split_models("cudagraphpreprocess model=~/m.pt")
        self.assertEqual(specs[0].path, os.path.expanduser("~/m.pt"))

    def test_refusals(self):
        for line, says in (
                ("cudagraphpreprocess name=p model=a.pt model=b.pt",
                 "cudagraphpreprocess 'p' says model= 2 times"),
                ("cudagraphbatch name=b model= ! fakesink",
                 "cudagraphbatch 'b' says model= without a file"),
                ('cudagraphpreprocess model="a.pt ! fakesink',
                 'a " that is not closed')):
            with self.subTest(line=line):
                with self.assertRaises(launch.LaunchError) as cm:
                    launch.split_models(line)
                self.assertIn(says, str(cm.exception))

    def test_join_argv(self):
        self.assertEqual(launch.join_argv(["videotestsrc", "!", "x",
                                           "a=b c", 'd="e f"']),
                         r'videotestsrc ! x a=b\ c d="e f"')
        _, specs = launch.split_models(launch.join_argv(
            ["cudagraphpreprocess", "model=/tmp/a b.pt", "!", "fakesink"]))
        self.assertEqual(specs[0].path, "/tmp/a b.pt")


class Files(unittest.TestCase):
    """Model files refused before PyTorch is needed, each error naming
    the element and the file."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def refused(self, line, *says):
        status, out, err = run_launch(line)
        self.assertEqual(status, 1, out + err)
        for s in says:
            self.assertIn(s, err)
        self.assertNotIn("Traceback", err)

    def test_missing(self):
        self.refused("videotestsrc ! cudagraphpreprocess name=pre model=%s ! "
                     "fakesink" % self.path("none.pt"),
                     "element 'pre' (cudagraphpreprocess), model '%s': no "
                     "such file" % self.path("none.pt"))

    def test_unnamed_element_is_named(self):
        self.refused("videotestsrc ! cudagraphbatch model=%s batch-size=1 ! "
                     "fakesink" % self.path("none.pt"),
                     "element cudagraphbatch (no name in the line; "
                     "'gcglaunch0' here), model '%s': no such file"
                     % self.path("none.pt"))

    def test_directory(self):
        self.refused("cudagraphpreprocess name=p model=%s ! fakesink"
                     % self.dir.name, "model '%s': a directory" % self.dir.name)

    def test_not_a_zip(self):
        with open(self.path("text.pt"), "w") as f:
            f.write("not a model\n")
        self.refused("cudagraphpreprocess name=p model=%s ! fakesink"
                     % self.path("text.pt"),
                     "element 'p' (cudagraphpreprocess), model '%s': not a "
                     "model" % self.path("text.pt"), "zip archive")

    @unittest.skipIf(HAVE_TORCH, "PyTorch is installed here")
    def test_no_torch(self):
        with zipfile.ZipFile(self.path("m.pt"), "w") as z:
            z.writestr("m/data.pkl", b"x")
        self.refused("videotestsrc ! cudagraphpreprocess name=p model=%s ! "
                     "fakesink" % self.path("m.pt"),
                     "element 'p' (cudagraphpreprocess), model '%s': PyTorch "
                     "is not installed" % self.path("m.pt"))

    def test_torch_errors_told_in_one_line(self):
        # A stand-in for PyTorch: torch.export.load logs a traceback as a
        # warning before it raises (PyTorch 2.11 does), jit.load raises.
        import logging
        import types

        def export_load(path):
            logging.getLogger("torch.export.pt2_archive._package").warning(
                "Unable to load package")
            try:
                raise RuntimeError("no record 'version'\n(more)")
            except RuntimeError:
                logging.getLogger("torch.export").warning(
                    "Ran into the following error when deserializing",
                    exc_info=True)
            raise RuntimeError("We ran into an error when deserializing")

        def jit_load(path, map_location=None):
            raise RuntimeError("PytorchStreamReader failed\nmore")

        fake = types.SimpleNamespace(
            export=types.SimpleNamespace(load=export_load),
            jit=types.SimpleNamespace(load=jit_load))
        with zipfile.ZipFile(self.path("m.pt"), "w") as z:
            z.writestr("m/data.pkl", b"x")
        spec = launch.ModelSpec("cudagraphbatch", "b", self.path("m.pt"),
                                False)
        printed = []

        class Keep(logging.Handler):
            def emit(self, record):
                printed.append(record.getMessage())

        root = logging.getLogger()
        keep = Keep()
        root.addHandler(keep)
        self.addCleanup(root.removeHandler, keep)
        with self.assertRaises(launch.LaunchError) as cm:
            launch.load_model(fake, spec, "cuda:0")
        self.assertEqual(str(cm.exception),
                         "element 'b' (cudagraphbatch), model '%s': not a "
                         "model PyTorch can load (TorchScript: PytorchStream"
                         "Reader failed; torch.export: no record "
                         "'version')" % self.path("m.pt"))
        self.assertEqual(printed, [])
        self.assertEqual(logging.getLogger("torch.export").filters, [])

    def test_print_line(self):
        status, out, _ = run_launch("--print-line", "videotestsrc", "!",
                                    "cudagraphpreprocess", "model=/x y.pt",
                                    "!", "fakesink")
        self.assertEqual(status, 0)
        self.assertEqual(out.splitlines(), [
            "videotestsrc ! cudagraphpreprocess name=gcglaunch0 ! fakesink",
            "gcglaunch0: /x y.pt"])


class _Item(ctypes.Structure):
    """GstCudaGraphResultsItem."""
    _fields_ = [("roi_id", ctypes.c_int), ("roi_type", ctypes.c_uint32),
                ("x", ctypes.c_float), ("y", ctypes.c_float),
                ("width", ctypes.c_float), ("height", ctypes.c_float)]


class Results(unittest.TestCase):
    """read_results() and the probe's counting on a buffer carrying a
    GstCudaGraphResultsMeta made by the library itself (the C layout
    read back through launch.py's ctypes mirror)."""

    def test_read_back(self):
        # Making an element loads the plugin, and with it libgcg-gst-1.0.
        pipeline = tensor.Pipeline("fakesrc ! cudagraphpreprocess backend=cpu "
                                   "! fakesink", sink=None)
        self.addCleanup(pipeline.close)
        g = launch._gst()
        self.assertIsNotNone(g.get_results_meta, "libgcg-gst-1.0 not found")
        gcggst = ctypes.CDLL("libgcg-gst-1.0.so.0")
        add = gcggst.gst_cuda_graph_buffer_add_results_meta
        add.restype = ctypes.c_void_p
        add.argtypes = [ctypes.c_void_p, ctypes.c_int,
                        ctypes.POINTER(launch._Result), ctypes.c_uint,
                        ctypes.POINTER(ctypes.c_uint32), ctypes.c_uint,
                        ctypes.POINTER(_Item), ctypes.c_uint]
        gst = ctypes.CDLL("libgstreamer-1.0.so.0")
        gst.gst_buffer_new.restype = ctypes.c_void_p
        gst.gst_mini_object_unref.argtypes = [ctypes.c_void_p]
        glib = ctypes.CDLL("libglib-2.0.so.0")
        glib.g_quark_from_string.restype = ctypes.c_uint32
        glib.g_quark_from_string.argtypes = [ctypes.c_char_p]
        buf = gst.gst_buffer_new()
        self.addCleanup(gst.gst_mini_object_unref, buf)
        self.assertIsNone(launch.read_results(buf))
        results = (launch._Result * 3)(
            launch._Result(1, 2, 3, 4, 0.9, 0, 0, 0),
            launch._Result(5, 6, 7, 8, 0.8, 1, 0, 0),
            launch._Result(9, 10, 11, 12, 0.7, 1, 0, 0))
        labels = (ctypes.c_uint32 * 2)(glib.g_quark_from_string(b"cat"),
                                       glib.g_quark_from_string(b"dog"))
        items = (_Item * 1)(_Item(-1, 0, 0, 0, 64, 48))
        self.assertTrue(add(buf, 2, results, 3, labels, 2, items, 1))
        got = launch.read_results(buf)
        self.assertEqual([(d.label, d.label_index, d.item) for d in got],
                         [("cat", 0, 0), ("dog", 1, 0), ("dog", 1, 0)])
        self.assertEqual((got[1].x, got[1].y, got[1].width, got[1].height),
                         (5, 6, 7, 8))
        self.assertAlmostEqual(got[2].confidence, 0.7, places=6)
        counter = launch._Counter("x", "frames")
        counter.count(buf)
        counter.count(buf)
        self.assertEqual((counter.frames, counter.results, counter.with_meta),
                         (2, 6, 2))
        self.assertEqual(launch._label_counts([counter]), {"cat": 2, "dog": 4})


SRC = "videotestsrc num-buffers={n} ! video/x-raw,width=64,height=48"


class Runs(unittest.TestCase):
    """python3 -m gcg.launch on the CPU backend (no model)."""

    def test_preprocess(self):
        status, out, err = run_launch(
            SRC.format(n=12) + " ! cudagraphpreprocess name=pre backend=cpu "
            "width=16 height=16 ! fakesink")
        self.assertEqual(status, 0, out + err)
        self.assertEqual(done_frames(out), 12)
        self.assertIn("launch: pre: 12 frames", out)
        self.assertIn("launch: pre: cpu backend, 0 captures", out)

    def test_batch_branches(self):
        status, out, err = run_launch(
            "-q", "cudagraphbatch name=b backend=cpu batch-size=2 width=16 "
            "height=16 ! queue ! fakesink " + SRC.format(n=8) + " ! b.sink_0 "
            "b.src_0 ! queue ! fakesink " + SRC.format(n=5) + " ! b.sink_1 "
            "b.src_1 ! queue ! fakesink")
        self.assertEqual(status, 0, out + err)
        self.assertEqual(done_frames(out), 13)
        self.assertIn("launch: b.src_0: 8 frames", out)
        self.assertIn("launch: b.src_1: 5 frames", out)
        self.assertIn("launch: b: 8 batches", out)

    def test_batch_without_branches(self):
        status, out, err = run_launch(
            "-q", "cudagraphbatch name=b backend=cpu batch-size=2 width=16 "
            "height=16 ! fakesink " + SRC.format(n=6) + " ! b.sink_0 "
            + SRC.format(n=4) + " ! b.sink_1")
        self.assertEqual(status, 0, out + err)
        self.assertEqual(done_frames(out), 10)

    def test_no_element_of_ours(self):
        status, out, err = run_launch("-q", SRC.format(n=7) + " ! fakesink "
                                      "name=s")
        self.assertEqual(status, 0, out + err)
        self.assertEqual(done_frames(out), 7)

    def test_bus_error(self):
        status, out, err = run_launch("filesrc location=/nonexistent/clip.mp4 "
                                      "name=file ! fakesink")
        self.assertEqual(status, 1, out + err)
        self.assertIn("ERROR from element file", err)

    def test_parse_error(self):
        status, _, err = run_launch("videotestsrc ! nosuchelement ! fakesink")
        self.assertEqual(status, 1)
        self.assertIn("the launch line does not parse", err)
        self.assertIn("nosuchelement", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
