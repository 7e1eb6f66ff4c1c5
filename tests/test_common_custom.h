/* Helpers shared by the tests of user-defined operators on rows and
 * segments (unit.custom_rows and unit.custom_scan_rows;
 * test_common_custom.c): the operators under test with their CPU
 * reference, and the pieces of one call: its rows or segments, their
 * random inputs, and the buffer that holds an input between poisoned
 * elements. */
#ifndef CLREDUCE_TEST_COMMON_CUSTOM_H
#define CLREDUCE_TEST_COMMON_CUSTOM_H

#include "test_common.h"

/* Where a call's buffers put their data: the first input from element
 * TCC_IN_OFFSET, the second from TCC_IN2_OFFSET, the results from
 * TCC_RESULT_OFFSET. */
#define TCC_IN_OFFSET 5
#define TCC_IN2_OFFSET 2
#define TCC_RESULT_OFFSET 3
/* Bytes of an accumulator at most. */
#define TCC_MAX_ACC 32

/* ---- the operators and their CPU references ----------------------------------------- */

/* An operator under test: its description and the same on the host, with
 * accumulators as bytes of the device's layout. */
typedef struct tcc_op {
    clreduce_operator_desc desc;
    size_t es; /* bytes of an input element */
    void (*fill)(void *data, size_t n);
    void (*identity)(void *acc); /* NULL: none */
    void (*map)(const void *x, const void *y, uint64_t i, void *acc);
    void (*combine)(void *a, const void *b); /* a = combine(a, b) */
    uint64_t poison;                         /* an element that changes any result */
} tcc_op;

/* A struct accumulator of 12 bytes: the min, max and count of floats. */
extern const tcc_op tcc_op_stats;
/* An index sum: commutative, reads i. */
extern const tcc_op tcc_op_isum;
/* A 2x2 integer matrix product that reads i: does not commute. */
extern const tcc_op tcc_op_mat;
/* Its accumulator and product in OpenCL C (mat, mat_mul), which unit.custom's
 * flat matrix product shares. */
#define TCC_MAT_SOURCE                                                                     \
    "typedef struct { uint a, b, c, d; } mat;\n"                                            \
    "mat mat_mul(mat p, mat q)\n"                                                           \
    "{\n"                                                                                   \
    "    return (mat){p.a * q.a + p.b * q.c, p.a * q.b + p.b * q.d,\n"                      \
    "                 p.c * q.a + p.d * q.c, p.c * q.b + p.d * q.d};\n"                     \
    "}\n"
/* An affine map of two inputs: does not commute. */
extern const tcc_op tcc_op_affine;
/* A weighted sum of two inputs. */
extern const tcc_op tcc_op_wdot;
/* "First element": no identity. */
extern const tcc_op tcc_op_first;

/* The reduction of n elements of x (and y) into acc; what the device writes
 * for no element: the identity, or zero bytes without one. */
void tcc_reference(const tcc_op *h, const unsigned char *x, const unsigned char *y, size_t n,
                   void *acc);

/* h's operator on ctx; fails the test when it cannot be created. */
clreduce_operator *tcc_create_or_fail(clreduce_ctx *ctx, const tcc_op *h);

/* ---- one call --------------------------------------------------------------------------- */

/* A batched call: rows (offsets NULL) or segments. The inputs x (and y)
 * hold `span` elements as laid out from element 0 (padding included). */
typedef struct tcc_batch {
    size_t rows, length, pitch;   /* rows; pitch as passed (0: length) */
    const uint64_t *offsets;      /* segments: segments + 1, or NULL */
    size_t segments;
    clreduce_type offsets_type;
    size_t span;                  /* elements of the input(s) */
    cl_command_queue queue;       /* NULL: the test's queue */
} tcc_batch;

/* The count of results: of segments, else of rows. */
size_t tcc_results_of(const tcc_batch *b);

/* Where result r's elements lie in x: from *start, *n of them. */
void tcc_range_of(const tcc_batch *b, size_t r, size_t *start, size_t *n);

/* A buffer of ctx of `lead` poisoned elements, then the elements of data
 * that lie in the batch's ranges (every other one poisoned), then three
 * more. */
cl_mem tcc_input_buffer(const clreduce_ctx *ctx, const tcc_op *h, const tcc_batch *b,
                        const unsigned char *data, size_t lead);

/* Random inputs of n elements for h (y NULL for one input); malloc'd. */
void tcc_make_inputs(const tcc_op *h, size_t n, unsigned char **x, unsigned char **y);

#endif
