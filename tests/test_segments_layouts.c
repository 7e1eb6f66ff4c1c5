/* The segments tests' layouts (test_segments_layouts.h). */
#include "test_segments_layouts.h"

#include "test_common.h"

const char *const tsl_layout_names[LAYOUT_COUNT] = {
    "mixed",  "tiny",      "whole input", "huge among tiny", "margins", "all empty",
    "medium", "thousands", "run edges",   "long",            "items",   "hundreds"};

static size_t random_length(void)
{
    size_t r = tc_rand_below(100);
    if (r < 35)
        return 0;
    if (r < 75)
        return 1 + tc_rand_below(8);
    if (r < 95)
        return 9 + tc_rand_below(5000);
    return 5000 + tc_rand_below(200000);
}

size_t tsl_make_layout(layout_kind kind, size_t count, uint64_t *offsets, size_t *segments)
{
    size_t s = 0, at = 0;
    switch (kind) {
    case LAYOUT_WHOLE:
        offsets[0] = 0;
        offsets[1] = count;
        *segments = 1;
        return count;
    case LAYOUT_EMPTY:
        *segments = 1000;
        for (size_t i = 0; i <= 1000; i++)
            offsets[i] = count / 2;
        return count;
    case LAYOUT_MARGINS:
        at = 1 + tc_rand_below(count / 4 < 10000 ? count / 4 : 10000);
        break;
    default:
        break;
    }
    offsets[s] = at;
    size_t huge_at = count / 8;
    while (s + 1 < TSL_MAX_SEGMENTS) {
        size_t len;
        if (kind == LAYOUT_TINY)
            len = tc_rand_below(4);
        else if (kind == LAYOUT_MEDIUM)
            len = 300 + tc_rand_below(2701);
        else if (kind == LAYOUT_THOUSANDS)
            len = tc_rand_below(40) == 0 ? 20000 + tc_rand_below(130001)
                                         : 1000 + tc_rand_below(6001);
        else if (kind == LAYOUT_LONG)
            len = 30000 + tc_rand_below(34001);
        else if (kind == LAYOUT_HUNDREDS)
            len = tc_rand_below(100) == 0 ? 1025 + tc_rand_below(1976) : tc_rand_below(401);
        else if (kind == LAYOUT_ITEMS) {
            size_t r = tc_rand_below(5000);
            len = r == 0 ? 5000 + tc_rand_below(95001)
                  : r <= 50 ? 257 + tc_rand_below(1744)
                            : tc_rand_below(41);
        }
        else if (kind == LAYOUT_EDGES)
            len = tc_rand_below(4) == 0 ? 0 : (size_t)4 << tc_rand_below(5);
        else if (kind == LAYOUT_HUGE_TINY)
            len = at >= huge_at && at < huge_at + 4 ? count / 2 : tc_rand_below(4);
        else
            len = random_length();
        size_t limit = kind != LAYOUT_MARGINS ? count
                       : count > 28000        ? count - 7000
                                              : count * 3 / 4;
        if (at + len > limit)
            break;
        at += len;
        offsets[++s] = at;
    }
    *segments = s;
    return count;
}
