#include "helper.h"
#include "engine.h"
#include "elements/element.h"

int
helper (void)
{
  return engine () + element_private ();
}
