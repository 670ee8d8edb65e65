#include "high.h"
#include <stdio.h>

int
high (void)
{
  return low () + 1;
}
