#include "a.h"
#include "b-private.h"
int a (void) { return b (); }
