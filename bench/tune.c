/* clreduce-bench: the tuning search (--tune): every combination of the
 * tuning values (or a small grid of them) for one type, operator and
 * variant, each in a context of its own, scored by the sum over the sizes
 * of the median call time (call_us, measure.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "measure.h"
#include "tune.h"
#include "util.h"

typedef struct candidate {
    clreduce_variant variant;
    clreduce_settings eff; /* the values in effect (clreduce_get_tuning) */
    int is_default;        /* the library's own choice, no override */
    int ok;
    double total_us;
    double call_us[TUNE_MAX_SIZES];
} candidate;

/* Same kernel and launch: variants 1 to 6 depend on the work-group size
 * only. */
static int same_config(const candidate *a, const candidate *b)
{
    if (a->variant != b->variant || a->eff.work_group_size != b->eff.work_group_size)
        return 0;
    if (a->variant != CLREDUCE_AUTO && a->variant < CLREDUCE_GRID_STRIDE)
        return 1;
    return a->eff.groups_per_compute_unit == b->eff.groups_per_compute_unit &&
           a->eff.loads_per_work_item == b->eff.loads_per_work_item &&
           a->eff.vector_width == b->eff.vector_width;
}

static int compare_candidates(const void *pa, const void *pb)
{
    const candidate *a = pa, *b = pb;
    if (a->ok != b->ok)
        return b->ok - a->ok;
    return (a->total_us > b->total_us) - (a->total_us < b->total_us);
}

static size_t dimension(const unsigned *all, size_t n_all, const unsigned *quick, size_t n_quick,
                        int use_quick, unsigned fixed, unsigned max, unsigned *out)
{
    size_t n = 0;
    if (fixed) {
        out[n++] = fixed;
        return n;
    }
    const unsigned *src = use_quick ? quick : all;
    size_t count = use_quick ? n_quick : n_all;
    for (size_t i = 0; i < count; i++)
        if (src[i] <= max)
            out[n++] = src[i];
    return n;
}

static const char *vendor_enum(const bench_device *d)
{
    if (strstr(d->platform_name, "Portable Computing Language"))
        return "VENDOR_POCL";
    if (strstr(d->vendor, "NVIDIA"))
        return "VENDOR_NVIDIA";
    if (strstr(d->vendor, "Advanced Micro Devices") || strstr(d->vendor, "AMD"))
        return "VENDOR_AMD";
    if (strstr(d->vendor, "Intel"))
        return "VENDOR_INTEL";
    return "VENDOR_OTHER";
}

static const char *type_enum(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU)
        return "CL_DEVICE_TYPE_GPU";
    if (t & CL_DEVICE_TYPE_CPU)
        return "CL_DEVICE_TYPE_CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        return "CL_DEVICE_TYPE_ACCELERATOR";
    return "0";
}

static void print_candidate(int rank, const candidate *c, const tune_options *o, size_t esize)
{
    char head[16];
    if (rank > 0)
        snprintf(head, sizeof head, "%4d", rank);
    else
        snprintf(head, sizeof head, "%4s", "lib");
    printf("%s %-12s %5zu %5u %5u %4u", head, clreduce_variant_name(c->variant),
           c->eff.work_group_size, c->eff.groups_per_compute_unit, c->eff.loads_per_work_item,
           c->eff.vector_width);
    for (size_t s = 0; s < o->size_count; s++)
        printf(" %11.2f", c->call_us[s]);
    size_t last = o->size_count - 1;
    printf(" %11.2f %9.1f\n", c->total_us,
           (double)(o->sizes[last] * esize) / (c->call_us[last] * 1e3));
}

int run_tune(const bench_device *d, const tune_options *o)
{
    size_t esize = clreduce_type_size(o->type);
    if (o->size_count > TUNE_MAX_SIZES)
        fatal("--tune takes at most %d sizes", TUNE_MAX_SIZES);
    static const unsigned wg_all[] = {128, 256, 512, 1024}, wg_quick[] = {128, 256};
    static const unsigned loads_all[] = {1, 2, 4, 8}, loads_quick[] = {1, 4};
    static const unsigned vec_all[] = {1, 2, 4, 8};
    static const unsigned gpcu_all[] = {1, 2, 4, 8, 16, 32}, gpcu_quick[] = {2, 8};
    unsigned vec_quick[] = {(unsigned)(16 / esize)};
    unsigned wgs[8], loads[8], vecs[8], gpcus[8];
    unsigned max_wg = d->max_work_group_size > 65536 ? 65536 : (unsigned)d->max_work_group_size;
    size_t nwg = dimension(wg_all, 4, wg_quick, 2, o->quick, (unsigned)o->fixed->work_group_size,
                           max_wg, wgs);
    size_t nloads = dimension(loads_all, 4, loads_quick, 2, o->quick,
                              o->fixed->loads_per_work_item, ~0u, loads);
    /* Up to 8 elements a load; 16 bytes at most for 8-byte types. */
    size_t nvec = dimension(vec_all, 4, vec_quick, 1, o->quick, o->fixed->vector_width,
                            esize == 8 ? 2 : 8, vecs);
    size_t ngpcu = dimension(gpcu_all, 6, gpcu_quick, 2, o->quick,
                             o->fixed->groups_per_compute_unit, ~0u, gpcus);
    size_t grid = nwg * nloads * nvec * ngpcu;
    size_t max_candidates = o->variant_count * (grid + 1);
    candidate *cands = xmalloc(max_candidates * sizeof *cands);
    memset(cands, 0, max_candidates * sizeof *cands);

    char sizes_text[256] = "";
    size_t len = 0;
    for (size_t s = 0; s < o->size_count && len < sizeof sizes_text; s++) {
        char l[32];
        size_label(o->sizes[s], l, sizeof l);
        len += (size_t)snprintf(sizes_text + len, sizeof sizes_text - len, "%s%s", s ? " " : "", l);
    }
    printf("# tune %s %s on %s (driver %s): %zu settings x %zu variant(s), sizes %s, "
           "warm-up %d, %d timed runs; score = sum over sizes of the median call time "
           "(call_us)\n",
           clreduce_type_name(o->type), clreduce_op_name(o->op), d->name, d->driver, grid,
           o->variant_count, sizes_text, o->warmup, o->runs);
    fflush(stdout);

    /* Inputs, once for all candidates. */
    dataset *ds = xmalloc(o->size_count * sizeof *ds);
    cl_ulong limit = device_buffer_limit(d);
    for (size_t s = 0; s < o->size_count; s++) {
        if ((cl_ulong)o->sizes[s] * esize > limit)
            fatal("size %zu of %s is more than the device's largest buffer allows", o->sizes[s],
                  clreduce_type_name(o->type));
        progress("preparing input %zu of %zu", s + 1, o->size_count);
        dataset_create(d, o->type, o->sizes[s], o->seed, limit, 0, &ds[s]);
    }

    int failed = 0;
    size_t n = 0, tried = 0, total = max_candidates, skipped = 0;
    char last_skip[1024] = "";
    for (size_t vi = 0; vi < o->variant_count; vi++) {
        for (size_t k = 0; k <= grid; k++) {
            clreduce_settings req;
            clreduce_default_settings(&req);
            req.subgroup_path = o->fixed->subgroup_path;
            int is_default = k == 0;
            if (!is_default) {
                size_t i = k - 1;
                req.work_group_size = wgs[i % nwg];
                i /= nwg;
                req.loads_per_work_item = loads[i % nloads];
                i /= nloads;
                req.vector_width = vecs[i % nvec];
                i /= nvec;
                req.groups_per_compute_unit = gpcus[i % ngpcu];
            } else {
                req.work_group_size = o->fixed->work_group_size;
                req.loads_per_work_item = o->fixed->loads_per_work_item;
                req.vector_width = o->fixed->vector_width;
                req.groups_per_compute_unit = o->fixed->groups_per_compute_unit;
            }
            tried++;
            clreduce_ctx *ctx = NULL;
            clreduce_status st = clreduce_create_with_settings(d->context, d->device, &req, &ctx);
            if (st != CLREDUCE_SUCCESS) {
                snprintf(last_skip, sizeof last_skip, "%s", clreduce_last_error(NULL));
                skipped++;
                continue;
            }
            candidate *c = &cands[n];
            memset(c, 0, sizeof *c);
            c->variant = o->variants[vi];
            c->is_default = is_default;
            if (clreduce_get_tuning(ctx, o->type, &c->eff) != CLREDUCE_SUCCESS)
                fatal("clreduce_get_tuning failed: %s", clreduce_last_error(ctx));
            int dup = 0;
            for (size_t j = 0; j < n && !dup; j++)
                dup = same_config(&cands[j], c);
            if (dup) {
                clreduce_destroy(ctx);
                continue;
            }
            progress("[%zu/%zu] %s wg %zu, groups/CU %u, loads %u, vec %u", tried, total,
                     clreduce_variant_name(c->variant), c->eff.work_group_size,
                     c->eff.groups_per_compute_unit, c->eff.loads_per_work_item,
                     c->eff.vector_width);
            c->ok = 1;
            measure_config config = {o->runs, o->warmup, 0};
            for (size_t s = 0; s < o->size_count && c->ok; s++) {
                measurement m;
                measure_reduction(d, ctx, &ds[s], o->op, c->variant, &config, &m);
                if (m.status != MEASURE_OK) {
                    c->ok = 0;
                    if (m.status == MEASURE_UNSUPPORTED) {
                        snprintf(last_skip, sizeof last_skip, "%s", m.message);
                        skipped++;
                    } else {
                        failed = 1;
                        progress_done();
                        fprintf(stderr,
                                "clreduce-bench: %s: %s wg %zu gpcu %u loads %u vec %u, %zu "
                                "elements: %s\n",
                                m.status == MEASURE_WRONG ? "WRONG RESULT" : "error",
                                clreduce_variant_name(c->variant), c->eff.work_group_size,
                                c->eff.groups_per_compute_unit, c->eff.loads_per_work_item,
                                c->eff.vector_width, o->sizes[s], m.message);
                    }
                    break;
                }
                c->call_us[s] = m.call_us;
                c->total_us += m.call_us;
            }
            clreduce_destroy(ctx);
            n++;
        }
    }
    progress_done();
    for (size_t s = 0; s < o->size_count; s++)
        dataset_release(&ds[s]);
    free(ds);

    qsort(cands, n, sizeof *cands, compare_candidates);
    size_t good = 0;
    while (good < n && cands[good].ok)
        good++;
    /* The library's own choice for the winning variant. */
    candidate lib;
    int have_lib = 0;
    for (size_t i = 0; i < good && !have_lib; i++) {
        if (cands[i].is_default && cands[i].variant == cands[0].variant) {
            lib = cands[i];
            have_lib = 1;
        }
    }
    printf("# %zu distinct configurations measured, %zu passed", n, good);
    if (skipped)
        printf("; %zu skipped as unsupported or invalid (last: %s)", skipped, last_skip);
    printf("\n");
    if (good == 0) {
        printf("# no configuration ran\n");
        free(cands);
        return 1;
    }
    printf("%4s %-12s %5s %5s %5s %4s", "rank", "variant", "wg", "gpcu", "loads", "vec");
    for (size_t s = 0; s < o->size_count; s++) {
        char l[32], h[40];
        size_label(o->sizes[s], l, sizeof l);
        snprintf(h, sizeof h, "%s_us", l);
        printf(" %11s", h);
    }
    char lastl[32], gh[48];
    size_label(o->sizes[o->size_count - 1], lastl, sizeof lastl);
    snprintf(gh, sizeof gh, "GB/s@%s", lastl);
    printf(" %11s %9s\n", "total_us", gh);
    size_t show = good < 10 ? good : 10;
    for (size_t i = 0; i < show; i++)
        print_candidate((int)i + 1, &cands[i], o, esize);
    if (have_lib) {
        size_t rank = 0;
        for (size_t i = 0; i < good; i++)
            if (same_config(&cands[i], &lib))
                rank = i + 1;
        print_candidate(0, &lib, o, esize);
        printf("# the library's current tuning (\"lib\" above) ranks %zu of %zu and takes "
               "%.1f%% longer in total than the best\n",
               rank, good, 100.0 * (lib.total_us / cands[0].total_us - 1.0));
    }
    const candidate *b = &cands[0];
    printf("# entry for the table in src/tuning.c (best of variant %s):\n",
           clreduce_variant_name(b->variant));
    printf("{%s, %s, \"%s\", %zu, %u, %u, %zu},\n", vendor_enum(d), type_enum(d->type), d->name,
           b->eff.work_group_size, b->eff.groups_per_compute_unit, b->eff.loads_per_work_item,
           (size_t)b->eff.vector_width * esize);
    free(cands);
    return failed;
}
