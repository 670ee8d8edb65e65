# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Python helpers for gst-cudagraph.

`gcg.tensor` turns the tensors `cudagraphpreprocess` pushes into an appsink
into PyTorch, CuPy or NumPy arrays without copying them.  The module needs
only the standard library (ctypes) and GStreamer's C libraries: it takes
PyGObject's Gst.Buffer and Gst.Sample, or raw GstBuffer* addresses, and
has a small ctypes pipeline driver (`gcg.tensor.Pipeline`) for programs
without PyGObject.  NumPy and PyTorch are imported when a method needs
them, so importing `gcg` never fails because one is missing.  `gcg.torch`
(imported on its own: it needs PyTorch) attaches a PyTorch model to
`cudagraphpreprocess`, so that preprocessing, the model and the copy-out
run as one graph replay per frame.  The library itself is
`gi.repository.Gcg`, not this package.
"""

__all__ = ["tensor", "torch"]
