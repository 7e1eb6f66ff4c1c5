/* clreduce-bench: the first-call latency (--cold): context creation and
 * the first clreduce_reduce_host() call compiling from source, then from
 * the disk cache in a new context, then from memory in the same context. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cold.h"
#include "util.h"

int run_cold(const bench_device *d, const clreduce_settings *settings)
{
    const size_t n = (size_t)1 << 20;
    float *data = xmalloc(n * sizeof *data);
    rng r;
    rng_seed(&r, 12345);
    double ref = 0, abs_sum = 0;
    for (size_t i = 0; i < n; i++) {
        data[i] = (float)((int32_t)(rng_next(&r) >> 40) - (1 << 23)) * 0x1p-23f;
        ref += data[i];
        abs_sum += fabs((double)data[i]);
    }

    /* A fresh disk-cache directory, so that the first context compiles. */
    char dir[] = "/tmp/clreduce-bench-cache.XXXXXX";
    if (!mkdtemp(dir))
        fatal("cannot create a temporary directory");
    const char *saved = getenv("CLREDUCE_CACHE_DIR");
    char *saved_copy = saved ? strdup(saved) : NULL;
    setenv("CLREDUCE_CACHE_DIR", dir, 1);

    /* Three first calls: from source (cold), from the disk cache in a new
     * context (warm disk), and again in that context (warm memory). */
    static const char *const what[3] = {"cold (compile from source)", "warm disk (new context)",
                                        "warm memory (same context)"};
    double create_ms[3] = {0, 0, 0}, call_ms[3] = {0, 0, 0};
    clreduce_cache_stats stats[3];
    memset(stats, 0, sizeof stats);
    int wrong = 0, failed = 0;
    clreduce_ctx *ctx = NULL;
    for (int k = 0; k < 3 && !failed; k++) {
        clreduce_status s = CLREDUCE_SUCCESS;
        if (k < 2) {
            clreduce_destroy(ctx);
            ctx = NULL;
            double t0 = now_ns();
            s = clreduce_create_with_settings(d->context, d->device, settings, &ctx);
            create_ms[k] = (now_ns() - t0) / 1e6;
            if (s != CLREDUCE_SUCCESS) {
                fprintf(stderr, "clreduce-bench: clreduce_create_with_settings failed: %s: %s\n",
                        clreduce_status_string(s), clreduce_last_error(NULL));
                failed = s == CLREDUCE_ERROR_INVALID_ARGUMENT ? 2 : 1;
                break;
            }
        }
        float result = 0;
        double t0 = now_ns();
        s = clreduce_reduce_host(ctx, CLREDUCE_OP_SUM, CLREDUCE_FLOAT, CLREDUCE_AUTO, data, n,
                                 &result);
        call_ms[k] = (now_ns() - t0) / 1e6;
        if (s != CLREDUCE_SUCCESS) {
            fprintf(stderr, "clreduce-bench: clreduce_reduce_host failed: %s: %s\n",
                    clreduce_status_string(s), clreduce_last_error(ctx));
            failed = 1;
            break;
        }
        clreduce_get_cache_stats(ctx, &stats[k]);
        if (!(fabs((double)result - ref) <= 1e-5 * abs_sum)) {
            fprintf(stderr, "clreduce-bench: WRONG RESULT: %s: sum = %.9g, expected %.9g\n",
                    what[k], (double)result, ref);
            wrong = 1;
        }
    }
    if (!failed) {
        printf("# first-call latency on %s (driver %s): clreduce_reduce_host, float sum of 2^20 "
               "elements (4 MB from host memory), variant auto (%s); disk cache in %s\n",
               d->name, d->driver,
               clreduce_variant_name(clreduce_auto_variant(ctx, CLREDUCE_FLOAT)), dir);
        printf("%-30s %14s %14s %8s %8s\n", "", "create_ms", "call_ms", "built", "loaded");
        for (int k = 0; k < 3; k++)
            printf("%-30s %14.3f %14.3f %8llu %8llu\n", what[k], create_ms[k], call_ms[k],
                   (unsigned long long)stats[k].programs_built,
                   (unsigned long long)stats[k].programs_loaded);
        printf("# drivers may keep compiled kernels in a cache of their own across processes "
               "(NVIDIA: CUDA_CACHE_DISABLE=1 turns it off; PoCL: POCL_KERNEL_CACHE=0)\n");
    }
    clreduce_destroy(ctx);
    if (saved_copy) {
        setenv("CLREDUCE_CACHE_DIR", saved_copy, 1);
        free(saved_copy);
    } else {
        unsetenv("CLREDUCE_CACHE_DIR");
    }
    /* Remove the cache files, then the directory. */
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0)
        fprintf(stderr, "clreduce-bench: could not remove %s\n", dir);
    free(data);
    return failed ? failed : wrong;
}
