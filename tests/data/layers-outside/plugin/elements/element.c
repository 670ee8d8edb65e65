#include "elements.h"
#include "element.h"
#include "helper.h"
#include "engine.h"

int
element (void)
{
  return helper () + engine ();
}
