#include "low.h"
#include "high.h"

int
low (void)
{
  return high () - 1;
}
