#include "elements.h"
#include "element.h"
#include "helper.h"
#include "engine.h"
#include <core/core.h>

int
element (void)
{
  return helper () + engine () + core ();
}
