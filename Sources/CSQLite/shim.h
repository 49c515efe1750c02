#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

// A hint that the 8 bytes at `p` are about to be written (the identity map's slot for a fetched
// row: the rows come in sort order, their slots in random order, each a likely cache miss).
static inline void csqlite_prefetch_for_write(const void *p) { __builtin_prefetch(p, 1, 3); }

