/* The runtime functions an AOT-compiled pipeline calls, as a C program linking it provides
 * them (serial parallel loops, 64-byte aligned allocations, errors printed to stderr):
 * shared by the tests that link an object file into a C driver. */
#include <stdio.h>
#include <stdlib.h>
#include "pipeline.h"

int32_t tessera_parallel_for(int32_t (*task)(const void *, int32_t), const void *closure,
                             int32_t min, int32_t extent) {
    for (int32_t i = min; i < min + extent; i++) {
        int32_t code = task(closure, i);
        if (code) return code;
    }
    return 0;
}
void *tessera_malloc(void *ctx, int64_t bytes, const char *name) {
    (void)ctx; (void)name;
    return aligned_alloc(64, (size_t)((bytes + 63) / 64 * 64 + 64));
}
void tessera_free(void *ctx, void *block) { (void)ctx; free(block); }
int32_t tessera_error(void *ctx, const char *message, const uint64_t *values) {
    (void)ctx; (void)values;
    fprintf(stderr, "error: %s\n", message);
    return -1;
}
