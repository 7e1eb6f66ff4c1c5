/* clreduce-bench: helpers every other part uses (errors, clocks, medians,
 * labels, parsing a count, the progress line, random numbers). Includes no
 * other header of the benchmark. */
#ifndef CLREDUCE_BENCH_UTIL_H
#define CLREDUCE_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <clreduce/clreduce.h>

/* Prints "clreduce-bench: <message>" on stderr and exits with status 1. */
_Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Exits through fatal() unless err is CL_SUCCESS. */
void check_cl(cl_int err, const char *what);

/* malloc that exits through fatal() when the host has no memory left. */
void *xmalloc(size_t bytes);

/* A string printed into new memory (free it). */
char *dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Host monotonic clock in nanoseconds. */
double now_ns(void);

/* The current time as "2026-12-01T13:21:15Z" (UTC). */
void utc_date(char *out, size_t size);

/* Median of n values (the array is reordered); NAN for none. */
double median_of(double *v, size_t n);

/* "2^20" for a power of two, else the decimal count. */
void size_label(size_t count, char *out, size_t out_size);

/* Parses a count: 1048576, 2^20, 2^20+1, 1e8, 1.5e6, 64Ki/64Mi/1Gi. 0 on error. */
int parse_count(const char *text, size_t *out);

/* Formats a byte count with a unit ("4.2 GB", "512.0 KB"; 1 GB = 1e9). */
void bytes_label(double bytes, char *out, size_t out_size);

/* Progress line on stderr ("[12/80] single_pass float sum 2^26"); a no-op
 * unless enabled or stderr is a terminal. progress_done() clears it. */
void progress_enable(int on);
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void progress_done(void);

/* xoshiro256** seeded by splitmix64. */
typedef struct rng {
    uint64_t s[4];
} rng;
void rng_seed(rng *r, uint64_t seed);
uint64_t rng_next(rng *r);

#endif
