#include "helper.h"
#include "engine.h"
#include "element.h"

int
helper (void)
{
  return engine () + element_private ();
}
