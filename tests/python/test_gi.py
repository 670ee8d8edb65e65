#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The library through GObject introspection (PyGObject), as an
application would use it.  Runs on machines without a driver: the test
environment points GCG_CUDA_LIBRARY at a library that does not exist."""
import sys
import unittest

import gi

gi.require_version("Gcg", "1.0")
from gi.repository import GLib, GObject, Gcg  # noqa: E402


class NoDriver(unittest.TestCase):
    def assertGcgError(self, ctx, code):
        err = ctx.exception
        self.assertEqual(err.domain, "gcg-error-quark")
        self.assertEqual(err.code, int(code))

    def test_driver_init_raises(self):
        with self.assertRaises(GLib.Error) as ctx:
            Gcg.driver_init()
        self.assertGcgError(ctx, Gcg.Error.NO_DRIVER)
        self.assertIn("install the NVIDIA driver", ctx.exception.message)

    def test_context_raises(self):
        with self.assertRaises(GLib.Error) as ctx:
            Gcg.Context.new(0)
        self.assertGcgError(ctx, Gcg.Error.NO_DRIVER)
        with self.assertRaises(GLib.Error):
            Gcg.Context.get_device_count()

    def test_driver_version_raises(self):
        with self.assertRaises(GLib.Error) as ctx:
            Gcg.driver_get_version()
        self.assertGcgError(ctx, Gcg.Error.NO_DRIVER)

    def test_fault_inject(self):
        self.assertTrue(Gcg.fault_inject("cuMemAlloc:1,cuGraphLaunch:*"))
        self.assertTrue(Gcg.fault_inject(None))
        with self.assertRaises(GLib.Error) as ctx:
            Gcg.fault_inject("cuNoSuchCall:1")
        self.assertGcgError(ctx, Gcg.Error.INVALID_ARGUMENT)

    def test_allocator_types(self):
        stats = Gcg.AllocatorStats()
        self.assertEqual(stats.allocated_bytes, 0)
        self.assertEqual(stats.oom_count, 0)
        self.assertEqual(Gcg.MemoryBlockState.PENDING, 2)
        self.assertEqual(Gcg.HostPool.bucket_size(5000), 8192)
        self.assertEqual(Gcg.HostPool.bucket_size(0), 0)

    def test_enums(self):
        self.assertEqual(Gcg.CaptureStatus.INVALIDATED, 2)
        self.assertEqual(Gcg.CaptureMode.GLOBAL, 0)
        self.assertEqual(Gcg.CaptureMode.THREAD_LOCAL, 1)
        self.assertEqual(Gcg.CaptureMode.RELAXED, 2)
        self.assertIsInstance(Gcg.kernels_get_archs(), str)

    def test_capture_pool(self):
        pool = Gcg.CapturePool.new()
        self.assertFalse(pool.is_sealed())
        pool.seal()
        self.assertTrue(pool.props.sealed)
        pool.unseal()
        self.assertEqual(pool.keep_object(GObject.Object()), 0)
        self.assertEqual(pool.get_kept_count(), 1)
        pool.clear()
        self.assertEqual(pool.get_kept_count(), 0)
        self.assertFalse(pool.has_private_pool())

    def test_pool_registry(self):
        handle = Gcg.CapturePool.handle_new()
        self.assertNotEqual(handle, 0)
        pool = Gcg.CapturePool.handle_lookup(handle)
        self.assertIsInstance(pool, Gcg.CapturePool)
        self.assertIs(Gcg.CapturePool.handle_lookup(handle), pool)
        Gcg.CapturePool.handle_release(handle)
        Gcg.CapturePool.handle_release(handle)
        self.assertIsNone(Gcg.CapturePool.handle_lookup(handle))


if __name__ == "__main__":
    sys.exit(unittest.main(verbosity=2))
