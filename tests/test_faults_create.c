/* unit.faults: clreduce_create() and clreduce_create_default() failed at
 * every OpenCL call (see test_faults.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_faults.h"

/* Any context handle a create function could hand out is not this. */
#define CTX_SENTINEL ((clreduce_ctx *)(uintptr_t)0x5e5e5e5e)

/* A context that came out of a create despite a fault must work. */
static void check_context_works(clreduce_ctx *ctx, const char *what)
{
    int data[1001];
    int64_t want = 0;
    for (int i = 0; i < 1001; i++) {
        data[i] = (int)(tc_rand64() % 2001) - 1000;
        want += data[i];
    }
    int got = 0;
    clreduce_status s = clreduce_reduce_host(ctx, CLREDUCE_OP_SUM, CLREDUCE_INT32, CLREDUCE_AUTO,
                                             data, 1001, &got);
    if (s != CLREDUCE_SUCCESS)
        print_error("%s: %s: %s\n", what, clreduce_status_string(s), clreduce_last_error(ctx));
    assert_int_equal(s, CLREDUCE_SUCCESS);
    assert_int_equal(got, (int)want);
}

typedef clreduce_status (*create_fn)(clreduce_ctx **out);

static clreduce_status create_on_shared(clreduce_ctx **out)
{
    return clreduce_create(g_cl, g_device, out);
}

static clreduce_status create_default(clreduce_ctx **out)
{
    return clreduce_create_default(out);
}

/* Whether the call is one of clreduce_find_device's (those before the first
 * clCreateContext of a create_default trace, if there is one). */
static int before_context(const fault_call *calls, size_t n, unsigned k)
{
    for (size_t i = 0; i < n && i < k - 1; i++)
        if (strcmp(calls[i].function, "clCreateContext") == 0)
            return 0;
    for (size_t i = k - 1; i < n; i++)
        if (strcmp(calls[i].function, "clCreateContext") == 0)
            return 1;
    return 0;
}

static void run_create_faults(const char *name, create_fn create)
{
    tc_seed_for(name);
    setenv("CLREDUCE_CACHE_DIR", g_cache_dir, 1);
    fault_objects before, now;
    fault_live(&before);
    clreduce_ctx *ctx = NULL;
    fault_start(0);
    clreduce_status s = create(&ctx);
    unsigned n = fault_stop();
    assert_int_equal(s, CLREDUCE_SUCCESS);
    fault_call trace[FAULT_TRACE_MAX];
    const fault_call *calls;
    size_t ntrace = fault_trace(&calls);
    memcpy(trace, calls, ntrace * sizeof *trace);
    print_trace(name, n);
    check_context_works(ctx, name);
    clreduce_destroy(ctx);
    fault_live(&now);
    assert_live_equal(name, &now, &before);

    unsigned failures = 0, tolerated = 0;
    for (unsigned k = 1; k <= n; k++) {
        char what[256];
        snprintf(what, sizeof what, "%s, call %u of %u (%s)", name, k, n, trace[k - 1].function);
        ctx = CTX_SENTINEL;
        fault_start(k);
        s = create(&ctx);
        fault_stop();
        note_failed_sites(&k, 1);
        fault_call failed;
        cl_int injected = CL_SUCCESS;
        assert_true(fault_injected(&failed, &injected));
        assert_string_equal(failed.function, trace[k - 1].function);
        if (s == CLREDUCE_SUCCESS) {
            /* An optional query (a capability assumed absent) or, while
             * looking for the device, a platform or device skipped. */
            assert_true(ctx != CTX_SENTINEL && ctx != NULL);
            print_message("%s: no error, a working context\n", what);
            check_context_works(ctx, what);
            clreduce_destroy(ctx);
            tolerated++;
        } else {
            const char *msg = clreduce_last_error(NULL);
            clreduce_status want = expected_status(injected);
            int ok = s == want ||
                     (s == CLREDUCE_ERROR_NO_DEVICE && before_context(trace, n, k));
            if (!ok || !msg[0])
                print_error("%s: injected %s, got %s: \"%s\"\n", what,
                            clreduce_opencl_error_name(injected), clreduce_status_string(s), msg);
            assert_true(ok);
            assert_true(msg[0] != '\0');
            assert_true(ctx == CTX_SENTINEL);
            failures++;
        }
        fault_live(&now);
        assert_live_equal(what, &now, &before);
        g_faults++;
    }
    print_message("%s: %u calls failed one at a time: %u errors, %u still gave a working "
                  "context\n",
                  name, n, failures, tolerated);
}

void test_create_faults(void **state)
{
    (void)state;
    run_create_faults("clreduce_create", create_on_shared);
}

void test_create_default_faults(void **state)
{
    (void)state;
    run_create_faults("clreduce_create_default", create_default);
}
