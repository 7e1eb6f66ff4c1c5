/* clreduce-bench: small helpers (errors, clocks, medians, labels, parsing,
 * the progress line, random numbers). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

void fatal(const char *fmt, ...)
{
    progress_done();
    va_list ap;
    va_start(ap, fmt);
    fputs("clreduce-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

void check_cl(cl_int err, const char *what)
{
    if (err != CL_SUCCESS)
        fatal("%s failed: %s (%d)", what, clreduce_opencl_error_name(err), (int)err);
}

void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        fatal("out of host memory (%zu bytes)", bytes);
    return p;
}

char *dup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

void utc_date(char *out, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median_of(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void size_label(size_t count, char *out, size_t out_size)
{
    if (count && !(count & (count - 1))) {
        int k = 0;
        while (((size_t)1 << k) != count)
            k++;
        snprintf(out, out_size, "2^%d", k);
    } else {
        snprintf(out, out_size, "%zu", count);
    }
}

void bytes_label(double bytes, char *out, size_t out_size)
{
    if (bytes >= 1e9)
        snprintf(out, out_size, "%.2f GB", bytes / 1e9);
    else if (bytes >= 1e6)
        snprintf(out, out_size, "%.1f MB", bytes / 1e6);
    else if (bytes >= 1e3)
        snprintf(out, out_size, "%.1f KB", bytes / 1e3);
    else
        snprintf(out, out_size, "%.0f B", bytes);
}

int parse_count(const char *text, size_t *out)
{
    while (isspace((unsigned char)*text))
        text++;
    if (!*text || *text == '-')
        return 0;
    const char *caret = strchr(text, '^');
    if (caret) {
        char *end;
        errno = 0;
        unsigned long base = strtoul(text, &end, 10);
        if (end != caret || errno || base < 2)
            return 0;
        if (!isdigit((unsigned char)caret[1]))
            return 0;
        unsigned long e = strtoul(caret + 1, &end, 10);
        if (errno)
            return 0;
        /* An optional "+N" or "-N": 2^20+1, 2^24-3. */
        long long adjust = 0;
        if ((*end == '+' || *end == '-') && isdigit((unsigned char)end[1])) {
            char *tail;
            adjust = strtoll(end + 1, &tail, 10);
            if (errno || *tail)
                return 0;
            if (*end == '-')
                adjust = -adjust;
        } else if (*end) {
            return 0;
        }
        double v = pow((double)base, (double)e) + (double)adjust;
        if (v > (double)SIZE_MAX / 2 || v < 1)
            return 0;
        size_t r = 1;
        for (unsigned long i = 0; i < e; i++)
            r *= base;
        *out = (size_t)((long long)r + adjust);
        return 1;
    }
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno || !(v >= 1) || v != floor(v))
        return 0;
    double mult = 1;
    if (strcmp(end, "Ki") == 0 || strcmp(end, "K") == 0)
        mult = 1024.0;
    else if (strcmp(end, "Mi") == 0 || strcmp(end, "M") == 0)
        mult = 1024.0 * 1024.0;
    else if (strcmp(end, "Gi") == 0 || strcmp(end, "G") == 0)
        mult = 1024.0 * 1024.0 * 1024.0;
    else if (*end)
        return 0;
    v *= mult;
    if (v > (double)SIZE_MAX / 2)
        return 0;
    *out = (size_t)v;
    return 1;
}

/* ---- progress -------------------------------------------------------------- */

static int progress_on, progress_tty, progress_shown;

void progress_enable(int on)
{
    progress_tty = isatty(STDERR_FILENO);
    progress_on = on || progress_tty;
}

void progress(const char *fmt, ...)
{
    if (!progress_on)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (progress_tty)
        fputs("\r\033[K", stderr);
    vfprintf(stderr, fmt, ap);
    if (!progress_tty)
        fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
    progress_shown = progress_tty;
}

void progress_done(void)
{
    if (progress_shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        progress_shown = 0;
    }
}

/* ---- random numbers ------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void rng_seed(rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}
