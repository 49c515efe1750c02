#include "tracking.h"

__thread int chandoff_tracking_seen;
__thread void *chandoff_tracking_probe;
__thread long chandoff_tracking_hits;
