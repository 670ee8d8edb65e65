#include "a.h"
int c (void) { return a (); }
