#include "config.h"
#include "elements.h"
#include <core.h>

int
plugin (void)
{
  return element ();
}
