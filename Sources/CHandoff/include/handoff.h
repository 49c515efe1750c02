#ifndef CHANDOFF_H
#define CHANDOFF_H

// The backing data a fetch hands to the model initializer it calls (`_BackingData.makeModel` and
// `_make` in OpenSwiftData): one object and its model type per thread, and how many models of that
// type asked for a backing data while the hand-off was open. A C thread-local costs a few
// instructions where pthread_getspecific/setspecific cost ~150 a model.
extern __thread void *chandoff_object;
extern __thread const void *chandoff_type;
extern __thread long chandoff_asked;

static inline void chandoff_set(void *object, const void *type) { chandoff_object = object; chandoff_type = type; }
static inline void *chandoff_object_get(void) { return chandoff_object; }
static inline const void *chandoff_type_get(void) { return chandoff_type; }
static inline long chandoff_asked_get(void) { return chandoff_asked; }
static inline void chandoff_asked_set(long asked) { chandoff_asked = asked; }

#include "tracking.h"

#endif
