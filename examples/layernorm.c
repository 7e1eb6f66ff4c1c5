/* Layer normalisation of every row of a matrix whose rows are padded to a
 * pitch, on the default OpenCL device (CLREDUCE_DEVICE selects another):
 * the mean and variance of each row in one call (clreduce_reduce_rows_host
 * with CLREDUCE_OP_MEAN_VAR, which merges (count, mean, m2) per row rather
 * than subtracting E[x]^2 from E[x^2]), then
 * y = (x - mean) / sqrt(variance + eps).
 * Checked against a two-pass CPU reference.
 *
 *   cc layernorm.c $(pkg-config --cflags --libs clreduce) -lm -o layernorm
 *   ./layernorm [rows [columns]]
 *
 * Exits with 0 when every value is within 1e-9 of the reference, 1 when not
 * (or on an error), 77 when there is no OpenCL device (or it lacks double
 * precision). */
#include <clreduce/clreduce.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define EPS 1e-5

int main(int argc, char **argv)
{
    size_t rows = argc > 1 ? strtoull(argv[1], NULL, 10) : 256;
    size_t columns = argc > 2 ? strtoull(argv[2], NULL, 10) : 768;
    size_t pitch = columns + 8; /* padding the reductions skip */
    size_t n = rows * pitch;
    double *x = malloc((n ? n : 1) * sizeof *x);
    clreduce_mean_var_double *stats = malloc((rows ? rows : 1) * sizeof *stats);
    if (!x || !stats)
        return 1;
    unsigned seed = 2024;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        size_t column = i % pitch;
        /* Each row its own scale and shift; the padding is garbage. */
        x[i] = column < columns ? 3.0 + (double)(i / pitch % 7) +
                                      ((double)((seed >> 8) % 10000) / 10000.0 - 0.5) *
                                          (1.0 + (double)(i / pitch % 5))
                                : 1e300;
    }

    clreduce_ctx *ctx;
    clreduce_status status = clreduce_create_default(&ctx);
    if (status != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce_create_default: %s: %s\n", clreduce_status_string(status),
                clreduce_last_error(NULL));
        return status == CLREDUCE_ERROR_NO_DEVICE ? 77 : 1;
    }
    int failed = 0;
    if ((status = clreduce_reduce_rows_host(ctx, CLREDUCE_OP_MEAN_VAR, CLREDUCE_DOUBLE, x, rows,
                                            columns, pitch, stats)) != CLREDUCE_SUCCESS) {
        fprintf(stderr, "mean and variance per row: %s: %s\n", clreduce_status_string(status),
                clreduce_last_error(ctx));
        failed = status == CLREDUCE_ERROR_UNSUPPORTED ? 77 : 1;
    }

    double worst = 0;
    for (size_t r = 0; r < rows && !failed; r++) {
        const double *row = x + r * pitch;
        double mean = stats[r].mean;
        double variance = stats[r].m2 / (double)stats[r].count; /* population variance */
        /* The reference: two passes over the row. */
        double ref_mean = 0, ref_variance = 0;
        for (size_t i = 0; i < columns; i++)
            ref_mean += row[i];
        ref_mean /= (double)columns;
        for (size_t i = 0; i < columns; i++)
            ref_variance += (row[i] - ref_mean) * (row[i] - ref_mean);
        ref_variance /= (double)columns;
        for (size_t i = 0; i < columns; i++) {
            double y = (row[i] - mean) / sqrt(variance + EPS);
            double want = (row[i] - ref_mean) / sqrt(ref_variance + EPS);
            double error = fabs(y - want);
            worst = error > worst ? error : worst;
        }
    }
    if (!failed) {
        printf("layer norm of %zu rows of %zu doubles (pitch %zu): largest difference from the "
               "CPU %.3g\n",
               rows, columns, pitch, worst);
        if (!(worst <= 1e-9)) {
            fprintf(stderr, "the normalised rows differ from the CPU reference by %g\n", worst);
            failed = 1;
        }
    }
    clreduce_destroy(ctx);
    free(x);
    free(stats);
    return failed;
}
