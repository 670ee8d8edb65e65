#include "low.h"
int high (void);
