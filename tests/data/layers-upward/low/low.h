#include "version.h"
int low (void);
