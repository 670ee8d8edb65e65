/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GcgKernelOp without a GPU: construction from source (compiled by NVRTC
 * for sm_75 as a check), from bytes and from a file, and every error a
 * caller can meet before a device is involved.  Compiling tests skip only
 * when NVRTC cannot be loaded on this machine, and say so.
 */
#include <gcg.h>
#include "gcg-kernel-code-private.h"
#include "gcg-kernel-op-private.h"
#include "gcg-kernel-stage-private.h"
#include "gcg-nvrtc-private.h"
#include "common/gcg-test-nvrtc.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define GOOD_SOURCE \
  "extern \"C\" __global__ void gain (const gcg_params *p)\n" \
  "{\n" \
  "  unsigned char *d = (unsigned char *) p->dst;\n" \
  "  d[threadIdx.x] = (unsigned char) (d[threadIdx.x] * p->g);\n" \
  "}\n"
#define GOOD_PARAMS "dst=dst0,g=f32:2"

static void
test_source (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelOp) op = NULL;
  guint x = 0, y = 0, z = 9;

  if (!gcg_test_nvrtc_or_skip ())
    return;
  op = gcg_kernel_op_new_from_source (NULL, GOOD_SOURCE, "gain", GOOD_PARAMS,
      &error);
  g_assert_no_error (error);
  g_assert_true (GCG_IS_KERNEL_OP (op));
  g_assert_cmpstr (gcg_kernel_op_get_name (op), ==, "gain");
  g_assert_cmpstr (gcg_kernel_op_get_entry (op), ==, "gain");
  g_assert_cmpstr (gcg_kernel_op_get_params (op), ==, GOOD_PARAMS);
  g_assert_true (gcg_kernel_op_is_source (op));
  gcg_kernel_op_get_block (op, &x, &y);
  g_assert_cmpuint (x, ==, GCG_KERNEL_OP_DEFAULT_BLOCK);
  g_assert_cmpuint (y, ==, GCG_KERNEL_OP_DEFAULT_BLOCK);
  gcg_kernel_op_get_grid (op, &x, &y, &z);
  g_assert_cmpuint (x + y + z, ==, 0);
}

static void
test_compile_error (void)
{
  const gchar *source = "extern \"C\" __global__ void k (const gcg_params *p)\n"
                        "{\n  no_such_thing = p->g;\n}\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelOp) op = NULL;

  if (!gcg_test_nvrtc_or_skip ())
    return;
  op = gcg_kernel_op_new_from_source (NULL, source, "k", "g=f32:1", &error);
  g_assert_null (op);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_test_message ("%s", error->message);
  /* NVRTC's log, at the user's line 3 (not shifted by the prelude). */
  g_assert_nonnull (strstr (error->message, "(3)"));
  g_assert_nonnull (strstr (error->message, "no_such_thing"));
}

static void
test_missing_entry (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelOp) op = NULL;

  if (!gcg_test_nvrtc_or_skip ())
    return;
  /* "gai" is a prefix of the real entry: only whole names match. */
  op = gcg_kernel_op_new_from_source (NULL, GOOD_SOURCE, "gai", GOOD_PARAMS,
      &error);
  g_assert_null (op);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "no entry point 'gai'"));
}

/* A kernel whose declaration is not the one pointer it is launched with
 * compiles in C++ but reads garbage on the device: refused at the
 * compile, saying how to declare it (failed before: each compiled). */
static void
test_mismatched_declaration (void)
{
  static const gchar *const bad[] = {
    /* other parameters */
    "extern \"C\" __global__ void gain (float *d, float g) { d[0] = g; }\n",
    /* the struct by value */
    "extern \"C\" __global__ void gain (gcg_params p) {}\n",
    /* the struct, not const */
    "extern \"C\" __global__ void gain (gcg_params *p) {}\n",
    /* no parameter */
    "extern \"C\" __global__ void gain () {}\n",
    /* C++ linkage: the driver would not find it by its name */
    "__global__ void gain (const gcg_params *p) {}\n",
    /* a device function, not a kernel */
    "extern \"C\" __device__ void gain (const gcg_params *p) {}\n",
  };

  if (!gcg_test_nvrtc_or_skip ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GcgKernelOp) op = gcg_kernel_op_new_from_source (NULL, bad[i],
        "gain", GOOD_PARAMS, &error);

    g_assert_null (op);
    g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
    g_test_message ("%s", error->message);
    g_assert_nonnull (strstr (error->message,
        "extern \"C\" __global__ "
        "void gain (const gcg_params *p)"));
  }
}

/* Entry point names are written into the compiled source: only C
 * identifiers (PTX ones for binaries), never code (failed before: a
 * name holding code reached NVRTC). */
static void
test_hostile_entry (void)
{
  g_autofree gchar *huge = g_strnfill (GCG_KERNEL_CODE_MAX_ENTRY + 1, 'k');
  g_autoptr (GBytes) code = g_bytes_new_static (".version 8.0\n", 13);
  const gchar *const bad[] = {
    "gain (const gcg_params *p) {} "
    "extern \"C\" __global__ void x",
    "gain;",
    "9gain",
    "ga in",
    "gain\n",
    "g\xc3\xa9",
    "gain-1",
    huge,
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GcgKernelOp) op = gcg_kernel_op_new_from_source (NULL,
        GOOD_SOURCE, bad[i], GOOD_PARAMS, &error);

    g_assert_null (op);
    g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "entry point must be"));
    g_assert_true (g_utf8_validate (error->message, -1, NULL));
    g_assert_cmpuint (strlen (error->message), <, 400);
    g_clear_object (&op);
    g_clear_error (&error);
    op = gcg_kernel_op_new_from_binary (NULL, code, bad[i], NULL, &error);
    g_assert_null (op);
    g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  }
  /* PTX and mangled names are names of binaries. */
  {
    g_autoptr (GcgKernelOp) op = gcg_kernel_op_new_from_binary (NULL, code,
        "_Z4gainPK10gcg_params$1", NULL, NULL);

    g_assert_nonnull (op);
  }
}

/* Source is text: a NUL would hide the rest of it from the compiler
 * (failed before: the part before the NUL compiled). */
static void
test_nul_in_source (void)
{
  static const gchar text[] = GOOD_SOURCE "\0 this is never compiled {";
  g_autoptr (GBytes) code = g_bytes_new_static (text, sizeof (text) - 1);
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelOp) op = NULL;

  op = gcg__kernel_op_new_full (NULL, TRUE, code, "nul.cu", "gain", GOOD_PARAMS,
      NULL, &error);
  g_assert_null (op);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "NUL byte at offset"));
}

/* NVRTC reads a byte 0xFF as the end of the source: what follows would
 * be left out without a word, so such source is refused (failed before:
 * text after it, not C++ at all, compiled). */
static void
test_ff_in_source (void)
{
  const gchar *source = GOOD_SOURCE "// \xff\nthis is not C++ at all {{{\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelOp) op = NULL;

  if (!gcg_test_nvrtc_or_skip ())
    return;
  op =
      gcg_kernel_op_new_from_source (NULL, source, "gain", GOOD_PARAMS, &error);
  g_assert_null (op);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "0xFF"));
}

/* Error messages are UTF-8 (they reach Python and GStreamer's bus as
 * strings), whatever the bytes of the file's name and of the source that
 * NVRTC's log quotes (failed before: the file's name went into the
 * message as it was). */
static void
test_not_utf8 (void)
{
  const gchar *source =
      "extern \"C\" __global__ void gain (const gcg_params "
      "*p)\n{\n  const char *s = \"\xc3\x28\x80\"; undefined_thing = s;\n}\n";
  g_autofree gchar *dir = g_dir_make_tmp ("gcg-kutf8-XXXXXX", NULL);
  g_autofree gchar *path = g_build_filename (dir, "k\xc3\x28\x80.cu", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelOp) op = NULL;

  g_assert_true (g_file_set_contents (path, source, -1, NULL));
  if (gcg_test_nvrtc_or_skip ()) {
    op = gcg_kernel_op_new_from_file (NULL, path, "gain", GOOD_PARAMS, &error);
    g_assert_null (op);
    g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
    g_test_message ("%s", error->message);
    g_assert_true (g_utf8_validate (error->message, -1, NULL));
    g_assert_nonnull (strstr (error->message, "(3)"));
    g_clear_error (&error);
  }
  /* Refused before NVRTC: the file's name in the message too. */
  op = gcg_kernel_op_new_from_file (NULL, path, "9", NULL, &error);
  g_assert_null (op);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  g_unlink (path);
  g_rmdir (dir);
}

/* A sparse file one byte past the limit on code (no disk is used). */
static gchar *
huge_file (const gchar *dir)
{
  gchar *path = g_build_filename (dir, "huge.cubin", NULL);
  gint fd = open (path, O_WRONLY | O_CREAT, 0600);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) GCG_KERNEL_STAGE_MAX_CODE + 1), ==,
      0);
  close (fd);
  return path;
}

/* A file is judged by what fstat() says before anything is read: a FIFO
 * is not opened for good, a directory, an empty file or one past the
 * limit is refused, naming the file. */
static void
test_hostile_files (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("gcg-kfile-XXXXXX", NULL);
  g_autofree gchar *fifo = g_build_filename (dir, "fifo.cu", NULL);
  g_autofree gchar *empty = g_build_filename (dir, "empty.ptx", NULL);
  g_autofree gchar *huge = huge_file (dir);
  const gchar *paths[] = { fifo, dir, empty, huge };
  const gint codes[] = { G_FILE_ERROR_INVAL, G_FILE_ERROR_INVAL,
    G_FILE_ERROR_INVAL, G_FILE_ERROR_INVAL };

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GcgKernelOp)
        op = gcg_kernel_op_new_from_file (NULL, paths[i], "k", NULL, &error);

    g_assert_null (op);
    g_assert_error (error, G_FILE_ERROR, codes[i]);
    g_assert_nonnull (strstr (error->message, paths[i]));
  }
  g_unlink (fifo);
  g_unlink (empty);
  g_unlink (huge);
  g_rmdir (dir);
}

/* The file past the limit is refused unread: the subprocess has 64 MiB
 * of address space more than it uses, too little to read 256 MiB
 * (failed before: the whole file was read, then refused).  Not under
 * ASan, whose shadow memory needs the address space. */
static void
test_huge_file_unread (void)
{
#ifndef __SANITIZE_ADDRESS__
  g_autofree gchar *dir = NULL;
  g_autofree gchar *huge = NULL;

  if (!g_test_subprocess ()) {
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed ();
    return;
  }
  dir = g_dir_make_tmp ("gcg-khuge-XXXXXX", NULL);
  huge = huge_file (dir);
  {
    g_autofree gchar *statm = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (GcgKernelOp) op = NULL;
    struct rlimit lim;

    g_assert_true (g_file_get_contents ("/proc/self/statm", &statm, NULL,
        NULL));
    lim.rlim_cur = lim.rlim_max =
        (rlim_t) g_ascii_strtoull (statm, NULL, 10) * sysconf (_SC_PAGESIZE)
        + 64 * 1024 * 1024;
    g_assert_cmpint (setrlimit (RLIMIT_AS, &lim), ==, 0);
    op = gcg_kernel_op_new_from_file (NULL, huge, "k", NULL, &error);
    g_assert_null (op);
    g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  }
  g_unlink (huge);
  g_rmdir (dir);
#else
  g_test_skip ("setrlimit (RLIMIT_AS) and ASan do not mix");
#endif
}

/* Errors found before NVRTC is asked for anything. */
static void
test_bad_arguments (void)
{
  g_autoptr (GBytes) code = g_bytes_new_static ("x", 1);
  g_autoptr (GBytes) empty = g_bytes_new_static ("", 0);
  GError *error = NULL;

  g_assert_null (gcg_kernel_op_new_from_source (NULL, GOOD_SOURCE, "", NULL,
      &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "entry point"));
  g_clear_error (&error);
  g_assert_null (gcg_kernel_op_new_from_source (NULL, "", "k", NULL, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (gcg_kernel_op_new_from_binary (NULL, empty, "k", NULL,
      &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (gcg_kernel_op_new_from_binary (NULL, code, "k",
      "a=f32:1,a=f32:2", &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "Kernel 'k'"));
  g_clear_error (&error);
  g_assert_null (gcg_kernel_op_new_from_binary (NULL, code, "k",
      "x=nosuchfield", &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
}

static void
test_binary (void)
{
  g_autoptr (GBytes) code = g_bytes_new_static (".version 8.0\n", 13);
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelOp) op = NULL;

  /* Without a context the driver's verdict on the code waits for a
   * chain; the declaration is checked now. */
  op = gcg_kernel_op_new_from_binary (NULL, code, "k", "n=i32:3", &error);
  g_assert_no_error (error);
  g_assert_false (gcg_kernel_op_is_source (op));
  g_assert_cmpstr (gcg_kernel_op_get_name (op), ==, "k");
}

static void
test_file (void)
{
  const gchar *dir = g_getenv ("GCG_EXAMPLES_DIR");
  g_autofree gchar *path = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelOp) op = NULL;

  op = gcg_kernel_op_new_from_file (NULL, "/nonexistent/k.cu", "k", NULL,
      &error);
  g_assert_null (op);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_nonnull (strstr (error->message, "/nonexistent/k.cu"));
  g_clear_error (&error);
  if (!gcg_test_nvrtc_or_skip ())
    return;
  g_assert_nonnull (dir);
  path = g_build_filename (dir, "kernels", "vignette.cu", NULL);
  op = gcg_kernel_op_new_from_file (NULL, path, "vignette",
      "src=src0,dst=dst0,src_pitch=src_pitch0,dst_pitch=dst_pitch0,"
      "width=out_width,height=out_height,strength=meta:strength:f32:0.5",
      &error);
  g_assert_no_error (error);
  g_assert_cmpstr (gcg_kernel_op_get_name (op), ==, "vignette.cu");
  g_assert_true (gcg_kernel_op_is_source (op));
}

static void
test_block (void)
{
  g_autoptr (GBytes) code = g_bytes_new_static ("x", 1);
  g_autoptr (GcgKernelOp)
      op = gcg_kernel_op_new_from_binary (NULL, code, "k", NULL, NULL);
  GError *error = NULL;
  guint x = 0, y = 0, z = 0;

  g_assert_nonnull (op);
  g_assert_true (gcg_kernel_op_set_block (op, 256, 4, &error));
  g_assert_no_error (error);
  g_assert_false (gcg_kernel_op_set_block (op, 64, 32, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (gcg_kernel_op_set_block (op, 0, 1, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* A refused size changes nothing. */
  gcg_kernel_op_get_block (op, &x, &y);
  g_assert_cmpuint (x, ==, 256);
  g_assert_cmpuint (y, ==, 4);
  gcg_kernel_op_set_grid (op, 3, 2, 1);
  gcg_kernel_op_get_grid (op, &x, &y, &z);
  g_assert_cmpuint (x * 100 + y * 10 + z, ==, 321);
}

/* User kernels need CUDA: a chain on the CPU backend says so. */
static void
test_cpu_chain (void)
{
  g_autoptr (GBytes) code = g_bytes_new_static ("x", 1);
  g_autoptr (GcgKernelOp)
      op = gcg_kernel_op_new_from_binary (NULL, code, "k", NULL, NULL);
  g_autoptr (GcgFrameChainConfig) config = gcg_frame_chain_config_new ();
  g_autoptr (GcgFrameChain) chain = NULL;
  g_autoptr (GError) error = NULL;

  config->in_format = config->out_format = GCG_PIXEL_FORMAT_RGBA;
  config->in_width = config->out_width = 8;
  config->in_height = config->out_height = 4;
  chain = gcg_frame_chain_new (config, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  for (guint pos = GCG_KERNEL_POSITION_BEFORE; pos <= GCG_KERNEL_POSITION_AFTER;
      pos++) {
    g_assert_false (gcg_frame_chain_add_kernel (chain, op, pos, &error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED);
    g_assert_nonnull (strstr (error->message, "CUDA backend"));
    g_clear_error (&error);
  }
}

static void
test_cpu_batch (void)
{
  g_autoptr (GBytes) code = g_bytes_new_static ("x", 1);
  g_autoptr (GcgKernelOp) op =
      gcg_kernel_op_new_from_binary (NULL, code, "k", "t=dst0,n=items", NULL);
  g_autoptr (GcgFrameBatchConfig) config = gcg_frame_batch_config_new ();
  g_autoptr (GcgFrameBatch) batch = NULL;
  g_autoptr (GError) error = NULL;

  batch = gcg_frame_batch_new (config, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (gcg_frame_batch_add_kernel (batch, op, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "Kernel 'k'"));
}

static void
test_enum (void)
{
  GEnumClass *klass = g_type_class_ref (GCG_TYPE_KERNEL_POSITION);

  g_assert_cmpstr (
      g_enum_get_value (klass, GCG_KERNEL_POSITION_BEFORE)->value_nick, ==,
      "before");
  g_assert_cmpstr (
      g_enum_get_value (klass, GCG_KERNEL_POSITION_AFTER)->value_nick, ==,
      "after");
  g_type_class_unref (klass);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/kernel-op/source", test_source);
  g_test_add_func ("/kernel-op/compile-error", test_compile_error);
  g_test_add_func ("/kernel-op/missing-entry", test_missing_entry);
  g_test_add_func ("/kernel-op/mismatched-declaration",
      test_mismatched_declaration);
  g_test_add_func ("/kernel-op/hostile-entry", test_hostile_entry);
  g_test_add_func ("/kernel-op/nul-in-source", test_nul_in_source);
  g_test_add_func ("/kernel-op/not-utf8", test_not_utf8);
  g_test_add_func ("/kernel-op/ff-in-source", test_ff_in_source);
  g_test_add_func ("/kernel-op/hostile-files", test_hostile_files);
  g_test_add_func ("/kernel-op/huge-file-unread", test_huge_file_unread);
  g_test_add_func ("/kernel-op/bad-arguments", test_bad_arguments);
  g_test_add_func ("/kernel-op/binary", test_binary);
  g_test_add_func ("/kernel-op/file", test_file);
  g_test_add_func ("/kernel-op/block", test_block);
  g_test_add_func ("/kernel-op/cpu-chain", test_cpu_chain);
  g_test_add_func ("/kernel-op/cpu-batch", test_cpu_batch);
  g_test_add_func ("/kernel-op/enum", test_enum);
  return g_test_run ();
}
