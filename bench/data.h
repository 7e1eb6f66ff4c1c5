/* clreduce-bench: the input on the device (random data, copied so that
 * calls can rotate over the copies), its CPU reference, and the runs of it
 * kept on the host to check scans. */
#ifndef CLREDUCE_BENCH_DATA_H
#define CLREDUCE_BENCH_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "reference.h"

/* Inputs up to this many elements have every element of a scan checked;
 * larger ones the windows dataset_create() picks. */
#define DATA_FULL_CHECK_MAX ((size_t)1 << 22)

/* A run of the input kept on the host for checking scans: its elements and
 * the prefix before it. */
typedef struct scan_window {
    size_t start, length;
    prefix_state before; /* of elements [0, start) */
    void *input;         /* elements [start, start + length) */
} scan_window;

typedef struct dataset {
    clreduce_type type;
    size_t count;  /* elements per call */
    size_t esize;  /* bytes per element */
    size_t stride; /* elements between copies in `buffer` */
    size_t copies; /* identical copies, rotated over */
    size_t cursor; /* next copy to use */
    cl_mem buffer; /* copies * stride elements */
    prefix_state total;   /* the reference: sum, min and max over the whole input */
    int has_operators;    /* `operators` made by dataset_add_operators() */
    operator_reference operators; /* the reference of the other operators */
    cl_mem second;        /* dot's second input, as `buffer`; NULL unless made */
    scan_window *windows; /* sorted and disjoint; NULL unless made for scans */
    size_t window_count;
} dataset;

/* Fills a dataset of `count` random elements of `type` on the device and
 * computes its reference. Inputs smaller than device_working_set() get as
 * many copies as fill it, within `max_bytes` in all. With `for_scans`, the
 * windows a scan's check reads are kept on the host too: all of the input
 * up to DATA_FULL_CHECK_MAX elements; beyond, both ends, both sides of every
 * power of two, and random runs long enough to cross several tiles. */
void dataset_create(const bench_device *d, clreduce_type type, size_t count, uint64_t seed,
                    cl_ulong max_bytes, int for_scans, dataset *ds);
void dataset_release(dataset *ds);

/* Computes ds->operators in one pass over a host copy of the input's first
 * copy (read back in chunks). With `second`, first fills ds->second with
 * another random input of the same type, size and copies (from another
 * seed, same ranges, nothing planted), the y of dot, and takes dot's
 * reference in the same pass. Once per dataset. */
void dataset_add_operators(const bench_device *d, dataset *ds, uint64_t seed, int second);

/* The element offset of the next copy to use (rotating over the copies). */
size_t dataset_next_offset(dataset *ds);

/* Whether `value` (clreduce_result_size(op, ds->type) bytes; for a storage
 * type, whose sum alone is checked, a float) is the reduction of the whole
 * input by `op` (dot: with ds->second); on failure a description of the
 * difference goes to msg. */
int dataset_check(const dataset *ds, clreduce_op op, const void *value, char *msg,
                  size_t msg_size);

/* One line on which elements of a scan's output are checked. */
void dataset_window_description(char *out, size_t size);

#endif
