/* clreduce-bench: shapes of many reductions (shapes.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapes.h"
#include "util.h"

int shape_parse(const char *text, shape *out)
{
    static const struct {
        const char *prefix;
        shape_kind kind;
    } kinds[] = {{"rows", SHAPE_ROWS},
                 {"scanrows", SHAPE_SCAN_ROWS},
                 {"random", SHAPE_RANDOM},
                 {"fixed", SHAPE_FIXED},
                 {"half", SHAPE_HALF}};
    memset(out, 0, sizeof *out);
    if (strcmp(text, "one") == 0) {
        out->kind = SHAPE_ONE;
        snprintf(out->label, sizeof out->label, "one");
        return 1;
    }
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        size_t n = strlen(kinds[i].prefix);
        if (strncmp(text, kinds[i].prefix, n) != 0 || !parse_count(text + n, &out->length) ||
            out->length == 0)
            continue;
        out->kind = kinds[i].kind;
        char len[32];
        size_label(out->length, len, sizeof len);
        if (out->kind == SHAPE_RANDOM)
            snprintf(out->label, sizeof out->label, "random:[1,%s]", len);
        else
            snprintf(out->label, sizeof out->label, "%s:%s", kinds[i].prefix, len);
        return 1;
    }
    return 0;
}

int shape_is_rows(const shape *s)
{
    return s->kind == SHAPE_ROWS || s->kind == SHAPE_SCAN_ROWS;
}

void shape_segments(const shape *s, size_t total, uint64_t seed, uint64_t **offsets,
                    size_t *segments)
{
    size_t n;
    switch (s->kind) {
    case SHAPE_ONE: n = 1; break;
    case SHAPE_RANDOM: n = total; break; /* at most; counted below */
    case SHAPE_HALF: n = total / s->length + 2; break; /* at most; counted below */
    default: n = total / s->length; break;
    }
    uint64_t *o = xmalloc((n + 1) * sizeof *o);
    o[0] = 0;
    if (s->kind == SHAPE_ONE) {
        o[1] = total;
    } else if (s->kind == SHAPE_RANDOM) {
        rng r;
        rng_seed(&r, seed ^ 0x5e65e65e65e65e6ull);
        size_t k = 0, at = 0;
        while (at < total) {
            size_t len = 1 + (size_t)(rng_next(&r) % s->length);
            at = len < total - at ? at + len : total;
            o[++k] = at;
        }
        n = k;
    } else if (s->kind == SHAPE_HALF) {
        /* Segments of `length`, and from a quarter of the input on, one of
         * half of it. */
        size_t k = 0, at = 0, half = total / 2;
        while (at < total) {
            size_t len = at >= total / 4 && half ? half : s->length;
            if (len == half)
                half = 0;
            at = len < total - at ? at + len : total;
            o[++k] = at;
        }
        n = k;
    } else {
        for (size_t i = 1; i <= n; i++)
            o[i] = (uint64_t)i * s->length;
    }
    *offsets = o;
    *segments = n;
}

static int compare_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

size_t *shape_checked(size_t segments, uint64_t seed, size_t *n)
{
    if (segments <= SHAPE_CHECK_ALL) {
        size_t *all = xmalloc((segments ? segments : 1) * sizeof *all);
        for (size_t i = 0; i < segments; i++)
            all[i] = i;
        *n = segments;
        return all;
    }
    size_t cap = 128 + SHAPE_CHECK_RANDOM, k = 0;
    size_t *pick = xmalloc(cap * sizeof *pick);
    for (size_t i = 0; i < 64; i++) {
        pick[k++] = i;
        pick[k++] = segments - 1 - i;
    }
    rng r;
    rng_seed(&r, seed ^ 0xc4ec4ec4ec4ec4eull);
    for (size_t i = 0; i < SHAPE_CHECK_RANDOM; i++)
        pick[k++] = (size_t)(rng_next(&r) % segments);
    qsort(pick, k, sizeof *pick, compare_size);
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (m == 0 || pick[i] != pick[m - 1])
            pick[m++] = pick[i];
    *n = m;
    return pick;
}
