/* A program's -D options, kept as (name, value) pairs: every call finds its
 * program in the cache by comparing them, and writes them out as text only
 * when the program is built or loaded. Formatting the text with snprintf on
 * every call took about 40% of the library's own host time. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

void defines_add(defines *d, const char *name, long long value)
{
    if (d->count < DEFINES_MAX)
        d->items[d->count++] = (define){name, NULL, value};
}

void defines_add_text(defines *d, const char *name, const char *text)
{
    if (d->count < DEFINES_MAX)
        d->items[d->count++] = (define){name, text, 0};
}

void defines_append(defines *d, const defines *more)
{
    for (unsigned i = 0; i < more->count && d->count < DEFINES_MAX; i++)
        d->items[d->count++] = more->items[i];
}

/* Names are literals, compared by address first: the same call site gives
 * the same address. */
static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

int defines_equal(const defines *a, const defines *b)
{
    if (a->count != b->count)
        return 0;
    for (unsigned i = 0; i < a->count; i++) {
        const define *x = &a->items[i], *y = &b->items[i];
        if (x->value != y->value || !same_text(x->name, y->name) || !same_text(x->text, y->text))
            return 0;
    }
    return 1;
}

size_t defines_write(const defines *d, const char *extra, const char *more, char *out,
                     size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < d->count && used < size; i++) {
        const define *x = &d->items[i];
        int n = x->text ? snprintf(out + used, size - used, "%s-D%s=%s", used ? " " : "",
                                   x->name, x->text)
                        : snprintf(out + used, size - used, "%s-D%s=%lld", used ? " " : "",
                                   x->name, x->value);
        used += n > 0 ? (size_t)n : 0;
    }
    const char *tails[] = {extra, more};
    for (size_t i = 0; i < 2 && used < size; i++) {
        if (!tails[i] || !tails[i][0])
            continue;
        int n = snprintf(out + used, size - used, "%s%s", used ? " " : "", tails[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    return used;
}
