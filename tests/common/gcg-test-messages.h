/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The ERROR and WARNING messages a pipeline posted, in order (refs), as
 * the launch-line tests read them off the bus themselves. */
typedef struct
{
  GList *errors;
  GList *warnings;
} GcgTestMessages;

void gcg_test_messages_clear (GcgTestMessages *m);
/* Keeps @msg when it is an ERROR or a WARNING. */
void gcg_test_messages_keep (GcgTestMessages *m, GstMessage *msg);
/* The messages of @list from elements whose name starts with @prefix. */
guint gcg_test_messages_count_from (GList *list, const gchar *prefix);

G_END_DECLS
