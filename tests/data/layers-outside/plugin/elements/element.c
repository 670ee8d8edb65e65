#include "elements.h"
#include "element.h"
#include "helpers/helper.h"
#include "engine.h"
#include <core/core.h>

int
element (void)
{
  return helper () + engine () + core ();
}
