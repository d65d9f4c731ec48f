// The memory floor of BENCHMARKS.md: one thread streams a 6400 x 4800 u16 image in (three
// rows per output row, as a 3-tap stencil) and an image of the same size out, with normal or
// non-temporal 64-byte stores, and prints the best of 15 runs and the bytes per second.
//   gcc -O2 -mavx512f -mavx512bw bench/stream.c -o stream && ./stream 0 && ./stream 1
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { W = 6400, H = 4800, STRIDE = W + 64 };

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    int nontemporal = argc > 1 && atoi(argv[1]);
    size_t in_bytes = (size_t)STRIDE * (H + 2) * 2, out_bytes = (size_t)W * H * 2;
    uint16_t *in = aligned_alloc(64, in_bytes), *out = aligned_alloc(64, out_bytes);
    memset(in, 1, in_bytes);
    memset(out, 0, out_bytes);
    double best = 1e9;
    for (int run = 0; run < 15; run++) {
        double start = now_ms();
        for (int y = 0; y < H; y++) {
            for (int x = 0; x < W; x += 32) {
                __m512i a = _mm512_loadu_si512(in + (size_t)y * STRIDE + x);
                __m512i b = _mm512_loadu_si512(in + (size_t)(y + 1) * STRIDE + x + 1);
                __m512i c = _mm512_loadu_si512(in + (size_t)(y + 2) * STRIDE + x + 2);
                __m512i sum = _mm512_add_epi16(_mm512_add_epi16(a, b), c);
                uint16_t *to = out + (size_t)y * W + x;
                if (nontemporal) _mm512_stream_si512((void *)to, sum);
                else _mm512_store_si512((void *)to, sum);
            }
        }
        _mm_sfence();
        double t = now_ms() - start;
        if (t < best) best = t;
    }
    double bytes = (double)W * H * 2 * 2;
    printf("%s stores: %.2f ms, %.1f GB/s (in + out)\n", nontemporal ? "non-temporal" : "normal",
           best, bytes / best / 1e6);
    return 0;
}
