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

    def test_no_testing_hooks(self):
        # Fault injection is in libgcg-testing.a (lib/testing), for the C
        # tests only: not in the typelib (tests/unit/test-fault.c covers it).
        self.assertFalse(hasattr(Gcg, "fault_inject"))

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
        self.assertEqual(Gcg.SyncMode.DRIVER, 0)
        self.assertEqual(Gcg.SyncMode.BLOCKING, 1)
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

    def test_frame_chain_cpu(self):
        config = Gcg.FrameChainConfig.new()
        self.assertEqual(config.in_width, 640)
        self.assertEqual(config.out_format, Gcg.PixelFormat.RGBA)
        config.in_format = Gcg.PixelFormat.NV12
        config.in_width = 5
        config.in_height = 3
        config.out_format = Gcg.PixelFormat.I420
        config.out_width = 5
        config.out_height = 3
        self.assertTrue(config.validate())
        self.assertEqual(config.get_output_size(), 15 + 6 + 6)
        config.max_rois = 2
        with self.assertRaises(GLib.Error) as ctx:
            config.validate()
        self.assertGcgError(ctx, Gcg.Error.INVALID_ARGUMENT)
        config.max_rois = 1
        # AUTO without a context (or driver) is the CPU reference.
        chain = Gcg.FrameChain.new(config, Gcg.Backend.AUTO, None)
        self.assertEqual(chain.get_backend(), Gcg.Backend.CPU)
        self.assertEqual(chain.get_capture_count(), 0)
        params = Gcg.FrameParams.new()
        self.assertEqual(params.gain, 1.0)
        params.set_mean_std([0.5, 0.5, 0.5], [0.25, 0.25, 0.25])
        self.assertAlmostEqual(params.offset[0], -2.0)
        # No planes: refused before anything runs.
        with self.assertRaises(GLib.Error) as ctx:
            chain.process(params, None)
        self.assertGcgError(ctx, Gcg.Error.INVALID_ARGUMENT)
        self.assertEqual(chain.get_eager_count(), 0)

    def test_frame_chain_cpu_process(self):
        """A frame end to end from Python: host planes by address."""
        import ctypes
        config = Gcg.FrameChainConfig.new()
        config.in_format = Gcg.PixelFormat.GRAY8
        config.in_width, config.in_height = 4, 2
        config.output = Gcg.OutputKind.TENSOR
        config.out_width, config.out_height = 2, 1
        config.letterbox = Gcg.Letterbox.NONE
        config.resize = Gcg.ResizeMethod.NEAREST
        config.tensor_type = Gcg.TensorType.UINT8
        config.tensor_channels = Gcg.TensorChannels.GRAY
        config.max_rois = 2
        chain = Gcg.FrameChain.new(config, Gcg.Backend.CPU, None)
        src = (ctypes.c_uint8 * 8)(10, 20, 30, 40, 50, 60, 70, 80)
        dst = (ctypes.c_uint8 * 4)()
        params = Gcg.FrameParams.new()
        params.set_src_plane(0, ctypes.addressof(src), 4)
        params.set_dst_plane(0, ctypes.addressof(dst), 0)
        roi = Gcg.Rect()
        roi.x, roi.y, roi.width, roi.height = 2, 1, 2, 1
        whole = Gcg.Rect()
        whole.x, whole.y, whole.width, whole.height = 0, 0, 4, 2
        self.assertTrue(params.set_rois([roi, whole]))
        self.assertEqual(params.n_rois, 2)
        self.assertTrue(chain.process(params, None))
        self.assertEqual(chain.get_eager_count(), 1)
        # Item 0: the ROI's row (70, 80).  Item 1: the whole 4x2 frame at
        # 2x1, nearest with centres aligned: output (0, 0) samples source
        # (1, 1) = 60 and (1, 0) samples (3, 1) = 80.
        self.assertEqual(list(dst), [70, 80, 60, 80])
        self.assertFalse(params.set_rois([roi] * 65))
        self.assertEqual(params.n_rois, 2)

    def test_frame_item_map(self):
        roi = Gcg.Rect()
        roi.x, roi.y, roi.width, roi.height = 10, 20, 100, 50
        m = Gcg.FrameItemMap.new(roi, 64, 64, Gcg.Letterbox.SYMMETRIC)
        self.assertEqual((m.width, m.height, m.pad_x, m.pad_y),
                         (64, 32, 0, 16))
        x, y = m.to_source(64, 48)
        self.assertAlmostEqual(x, 110.0)
        self.assertAlmostEqual(y, 70.0)
        u, v = m.from_source(10, 20)
        self.assertAlmostEqual(u, 0.0)
        self.assertAlmostEqual(v, 16.0)

    KERNEL = ("extern \"C\" __global__ void gain(const gcg_params *p)\n"
              "{\n"
              "  unsigned char *d = (unsigned char *) p->dst;\n"
              "  d[threadIdx.x] = (unsigned char) (d[threadIdx.x] * p->g);\n"
              "}\n")

    def kernel_op_or_skip(self, source, entry, params):
        """An op from source; skips (saying so) only when NVRTC itself is
        absent, which the CI machine never is."""
        try:
            return Gcg.KernelOp.new_from_source(None, source, entry, params)
        except GLib.Error as err:
            if err.code == int(Gcg.Error.NOT_SUPPORTED) and \
                    "nvrtc" in err.message.lower():
                self.skipTest("NVRTC is absent: " + err.message)
            raise

    def test_kernel_op(self):
        op = self.kernel_op_or_skip(self.KERNEL, "gain", "dst=dst0,g=f32:2")
        self.assertIsInstance(op, Gcg.KernelOp)
        self.assertEqual(op.get_entry(), "gain")
        self.assertEqual(op.get_params(), "dst=dst0,g=f32:2")
        self.assertTrue(op.is_source())
        self.assertTrue(op.set_block(128, 2))
        self.assertEqual(op.get_block(), (128, 2))
        with self.assertRaises(GLib.Error) as ctx:
            op.set_block(1024, 2)
        self.assertGcgError(ctx, Gcg.Error.INVALID_ARGUMENT)
        self.assertEqual(Gcg.KernelPosition.BEFORE, 0)
        self.assertEqual(Gcg.KernelPosition.AFTER, 1)

    def test_kernel_op_errors(self):
        self.kernel_op_or_skip(self.KERNEL, "gain", "dst=dst0,g=f32:2")
        bad = self.KERNEL.replace("p->g", "p->no_such_param")
        with self.assertRaises(GLib.Error) as ctx:
            Gcg.KernelOp.new_from_source(None, bad, "gain",
                                         "dst=dst0,g=f32:2")
        self.assertGcgError(ctx, Gcg.Error.INVALID_ARGUMENT)
        # NVRTC's log, at the line of the source as given.
        self.assertIn("(4)", ctx.exception.message)
        self.assertIn("no_such_param", ctx.exception.message)
        with self.assertRaises(GLib.Error) as ctx:
            Gcg.KernelOp.new_from_source(None, self.KERNEL, "gainx",
                                         "dst=dst0,g=f32:2")
        self.assertIn("no entry point 'gainx'", ctx.exception.message)
        with self.assertRaises(GLib.Error) as ctx:
            Gcg.KernelOp.new_from_source(None, self.KERNEL, "gain",
                                         "dst=dst0,g=f99:2")
        self.assertGcgError(ctx, Gcg.Error.INVALID_ARGUMENT)
        with self.assertRaises(GLib.Error) as ctx:
            Gcg.KernelOp.new_from_file(None, "/nonexistent/k.cu", "k", None)
        self.assertEqual(ctx.exception.domain, "g-file-error-quark")

    def test_kernel_op_cpu_chain(self):
        """A chain takes a kernel on the CUDA backend only: from Python the
        call is the same, and the CPU chain says why it refuses."""
        op = Gcg.KernelOp.new_from_binary(None, GLib.Bytes.new(b".version"),
                                          "k", "n=i32:3")
        self.assertFalse(op.is_source())
        config = Gcg.FrameChainConfig.new()
        chain = Gcg.FrameChain.new(config, Gcg.Backend.CPU, None)
        for pos in (Gcg.KernelPosition.BEFORE, Gcg.KernelPosition.AFTER):
            with self.assertRaises(GLib.Error) as ctx:
                chain.add_kernel(op, pos)
            self.assertGcgError(ctx, Gcg.Error.NOT_SUPPORTED)
            self.assertIn("CUDA backend", ctx.exception.message)


if __name__ == "__main__":
    sys.exit(unittest.main(verbosity=2))
