/*
 * Memory latency of this machine: one dependent load after another through
 * a random cycle of 64-byte lines spread over a buffer of the given size, so
 * that neither the caches beyond that size nor the hardware prefetchers can
 * help. Prints nanoseconds per load for each size given in MiB.
 *
 *   cc -O2 -o /tmp/memlat bench/memlat.c && /tmp/memlat 1 4 16 64 256
 *
 * bench/README.md, "What bounds 10,000 flows", uses it to read the cost of
 * a cache miss on a flow's state.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LINE_WORDS (64 / sizeof(size_t))
#define LOADS 20000000L

static uint64_t next_random(uint64_t *s) {
    /* xorshift64*: a fixed sequence, so every run chases the same cycle. */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

static double chase(size_t mib) {
    size_t lines = mib * 1024 * 1024 / 64;
    size_t *buf = aligned_alloc(64, lines * 64);
    size_t *order = malloc(lines * sizeof(size_t));
    if (buf == NULL || order == NULL) {
        fprintf(stderr, "memlat: cannot allocate %zu MiB\n", mib);
        exit(2);
    }
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < lines; i++)
        order[i] = i;
    for (size_t i = lines - 1; i > 0; i--) {
        size_t j = next_random(&seed) % (i + 1);
        size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    /* Each line holds the index of the next line of the cycle. */
    for (size_t i = 0; i < lines; i++)
        buf[order[i] * LINE_WORDS] = order[(i + 1) % lines] * LINE_WORDS;
    struct timespec t0, t1;
    size_t at = order[0] * LINE_WORDS;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long k = 0; k < LOADS; k++)
        at = buf[at];
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* Use the result, so that the chase is not optimised away. */
    if (at == (size_t)-1)
        puts("");
    free(order);
    free(buf);
    return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / LOADS;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: memlat MIB [MIB ...]\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        char *end;
        long mib = strtol(argv[i], &end, 10);
        if (*end != '\0' || mib < 1 || mib > 65536) {
            fprintf(stderr, "memlat: %s: expected a size in MiB, 1 to 65536\n", argv[i]);
            return 2;
        }
        printf("%6ld MiB: %6.1f ns per dependent load\n", mib, chase((size_t)mib));
    }
    return 0;
}
