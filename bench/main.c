/* clreduce-bench: memory bandwidth and call times of clreduce's reductions
 * and prefix scans, variant by variant, against the device's own measured
 * bandwidth ceiling and the driver's floor. bench/README.md describes the
 * method and every column; --help lists the options.
 *
 * main() parses the command line (cli.c), opens the device (device.c) and
 * hands over to one mode: the benchmark (run.c), the tuning search
 * (tune.c), the first-call latency (cold.c) or the ceiling alone (peak.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cold.h"
#include "device.h"
#include "peak.h"
#include "run.h"
#include "tune.h"
#include "util.h"

static int tune(const bench_device *dev, const options *o)
{
    clreduce_variant sp = CLREDUCE_SINGLE_PASS;
    size_t tune_sizes[3] = {(size_t)1 << 20, (size_t)1 << 24, (size_t)1 << 28};
    tune_options t;
    memset(&t, 0, sizeof t);
    t.type = o->type_list[0];
    t.op = o->op_list[0];
    t.variants = o->variant_count ? o->variant_list : &sp;
    t.variant_count = o->variant_count ? o->variant_count : 1;
    t.sizes = o->size_count ? o->sizes : tune_sizes;
    t.size_count = o->size_count ? o->size_count : dev->is_cpu ? 1 : 3;
    t.runs = o->runs > 0 ? o->runs : 10;
    t.warmup = o->warmup >= 0 ? o->warmup : 2;
    t.quick = o->tune_quick;
    t.fixed = &o->settings;
    t.seed = o->seed;
    return run_tune(dev, &t);
}

static void print_peak(const bench_device *d, const peak_result *p)
{
    char b[32];
    bytes_label((double)p->copy_bytes, b, sizeof b);
    printf("# peak on %s: read-only kernel %.1f GB/s (read bytes), clEnqueueCopyBuffer %.1f GB/s "
           "(read+write bytes), buffers of %s\n",
           d->name, p->read_gbps, p->copy_gbps, b);
}

static int benchmark(const bench_device *dev, options *o)
{
    cli_apply_defaults(o, dev->is_cpu);
    clreduce_ctx *ctx = NULL;
    clreduce_status s = clreduce_create_with_settings(dev->context, dev->device, &o->settings,
                                                      &ctx);
    if (s != CLREDUCE_SUCCESS) {
        fprintf(stderr, "clreduce-bench: clreduce_create_with_settings failed: %s: %s\n",
                clreduce_status_string(s), clreduce_last_error(NULL));
        return s == CLREDUCE_ERROR_INVALID_ARGUMENT ? EXIT_USAGE : 1;
    }
    peak_result peak;
    memset(&peak, 0, sizeof peak);
    if (!o->no_peak) {
        progress("measuring the bandwidth ceiling");
        peak_measure(dev, o->quick ? 5 : 10, &peak);
        progress_done();
    }
    int rc = 0;
    if (o->peak_only)
        print_peak(dev, &peak);
    else
        rc = run_benchmark(dev, ctx, o, &peak);
    clreduce_destroy(ctx);
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    cli_parse(argc, argv, &o);
    progress_enable(o.progress);
    if (o.list_devices) {
        device_list();
        cli_free(&o);
        return 0;
    }
    bench_device dev;
    int found = device_open(o.device, &dev);
    if (found <= 0) {
        cli_free(&o);
        return found == 0 ? 1 : EXIT_USAGE;
    }
    int rc;
    if (o.cold)
        rc = run_cold(&dev, &o.settings);
    else if (o.tune)
        rc = tune(&dev, &o);
    else
        rc = benchmark(&dev, &o);
    device_close(&dev);
    cli_free(&o);
    return rc;
}
