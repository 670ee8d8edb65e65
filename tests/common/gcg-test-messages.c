/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-test-messages.h"

void
gcg_test_messages_clear (GcgTestMessages *m)
{
  g_list_free_full (m->errors, (GDestroyNotify) gst_message_unref);
  g_list_free_full (m->warnings, (GDestroyNotify) gst_message_unref);
  m->errors = m->warnings = NULL;
}

void
gcg_test_messages_keep (GcgTestMessages *m, GstMessage *msg)
{
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    m->errors = g_list_append (m->errors, gst_message_ref (msg));
  else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING)
    m->warnings = g_list_append (m->warnings, gst_message_ref (msg));
}

guint
gcg_test_messages_count_from (GList *list, const gchar *prefix)
{
  guint n = 0;

  for (GList *l = list; l; l = l->next)
    n += g_str_has_prefix (GST_MESSAGE_SRC_NAME (l->data), prefix);
  return n;
}
