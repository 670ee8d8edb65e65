#include "config.h"
#include "elements.h"

int
plugin (void)
{
  return element ();
}
