#ifndef CHANDOFF_TRACKING_H
#define CHANDOFF_TRACKING_H

// OpenSwiftData's observation probe, per thread (see `BackingData+Observation.swift`):
// - seen: set when Observation hashed the probe key path, which it does only while
//   `withObservationTracking` (or `Observations`) is collecting the properties read;
// - probe: this thread's sentinel object (retained), and how many reads it has seen collected.
extern __thread int chandoff_tracking_seen;
extern __thread void *chandoff_tracking_probe;
extern __thread long chandoff_tracking_hits;

static inline void chandoff_tracking_set(int seen) { chandoff_tracking_seen = seen; }
static inline int chandoff_tracking_get(void) { return chandoff_tracking_seen; }
static inline void *chandoff_tracking_probe_get(void) { return chandoff_tracking_probe; }
static inline void chandoff_tracking_probe_set(void *probe) { chandoff_tracking_probe = probe; }
static inline long chandoff_tracking_hits_get(void) { return chandoff_tracking_hits; }
static inline void chandoff_tracking_hits_set(long hits) { chandoff_tracking_hits = hits; }

#endif
