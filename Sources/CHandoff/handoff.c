#include "handoff.h"

__thread void *chandoff_object;
__thread const void *chandoff_type;
__thread long chandoff_asked;
