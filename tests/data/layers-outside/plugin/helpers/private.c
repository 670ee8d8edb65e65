#include "engine-private.h"
