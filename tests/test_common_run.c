/* One reduction on the device with its buffers checked around it (see
 * test_common.h). */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one reduction on the device ------------------------------------------------- */

static int all_bytes(const unsigned char *p, size_t n, unsigned char b)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != b)
            return 0;
    return 1;
}

int tc_run_reduce(clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op, clreduce_type type,
                  clreduce_variant variant, const void *data, size_t n, const tc_layout *layout,
                  tc_run *run)
{
    memset(run, 0, sizeof *run);
    run->status = CLREDUCE_ERROR_OPENCL;
    size_t es = tc_elem_size(type);
    size_t total = layout->offset + n + layout->tail;
    size_t rcount = layout->result_offset + 3;
    unsigned char *host = malloc((total ? total : 1) * es);
    unsigned char *res = malloc(rcount * es);
    cl_mem in = NULL, out = NULL;
    cl_event upload = NULL, done = TC_EVENT_SENTINEL;
    cl_int err = CL_SUCCESS;
    if (!host || !res) {
        snprintf(run->problem, sizeof run->problem, "out of host memory");
        goto done_all;
    }
    tc_value poison;
    tc_poison(op, type, &poison);
    for (size_t i = 0; i < layout->offset; i++)
        tc_set(type, host, i, &poison);
    if (n)
        memcpy(host + layout->offset * es, data, n * es);
    for (size_t i = layout->offset + n; i < total; i++)
        tc_set(type, host, i, &poison);
    memset(res, TC_SENTINEL_BYTE, rcount * es);

    cl_context cl = clreduce_get_cl_context(ctx);
    in = clCreateBuffer(cl, CL_MEM_READ_WRITE, (total ? total : 1) * es, NULL, &err);
    if (err == CL_SUCCESS)
        out = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, rcount * es, res, &err);
    if (err == CL_SUCCESS && total)
        err = clEnqueueWriteBuffer(queue, in, layout->use_wait_list ? CL_FALSE : CL_TRUE, 0,
                                   total * es, host, 0, NULL,
                                   layout->use_wait_list ? &upload : NULL);
    if (err != CL_SUCCESS) {
        snprintf(run->problem, sizeof run->problem, "setting up the buffers failed: %d",
                 (int)err);
        goto done_all;
    }

    run->status = clreduce_reduce(ctx, queue, op, type, variant, in, layout->offset, n, out,
                                  layout->result_offset, upload ? 1 : 0, upload ? &upload : NULL,
                                  &done);
    int have_done = run->status == CLREDUCE_SUCCESS && done && done != TC_EVENT_SENTINEL;
    if (run->status == CLREDUCE_SUCCESS && !have_done) {
        snprintf(run->problem, sizeof run->problem, "success but no done event");
    } else if (have_done) {
        cl_int st = CL_QUEUED;
        cl_command_queue eq = NULL;
        err = clWaitForEvents(1, &done);
        if (err == CL_SUCCESS)
            err = clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
        if (err == CL_SUCCESS)
            err = clGetEventInfo(done, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, NULL);
        if (err != CL_SUCCESS)
            snprintf(run->problem, sizeof run->problem, "waiting on done failed: %d", (int)err);
        else if (st != CL_COMPLETE)
            snprintf(run->problem, sizeof run->problem,
                     "done event not complete after clWaitForEvents (status %d)", (int)st);
        else if (eq != queue)
            snprintf(run->problem, sizeof run->problem, "done event belongs to another queue");
    } else if (done != TC_EVENT_SENTINEL) {
        snprintf(run->problem, sizeof run->problem, "done written although the call failed (%s)",
                 clreduce_status_string(run->status));
    }
    /* Read behind the done event only, on the read queue if there is one. */
    cl_command_queue rq = have_done && layout->read_queue ? layout->read_queue : queue;
    err = clEnqueueReadBuffer(rq, out, CL_TRUE, 0, rcount * es, res, have_done ? 1 : 0,
                              have_done ? &done : NULL, NULL);
    if (have_done)
        clReleaseEvent(done);
    if (err == CL_SUCCESS)
        err = clFinish(queue);
    if (err != CL_SUCCESS && !run->problem[0])
        snprintf(run->problem, sizeof run->problem, "reading the result failed: %d", (int)err);

    memcpy(run->got.bytes, res + layout->result_offset * es, es);
    run->result_untouched = all_bytes(res + layout->result_offset * es, es, TC_SENTINEL_BYTE);
    run->neighbours_untouched =
        all_bytes(res, layout->result_offset * es, TC_SENTINEL_BYTE) &&
        all_bytes(res + (layout->result_offset + 1) * es, (rcount - layout->result_offset - 1) * es,
                  TC_SENTINEL_BYTE);

done_all:
    if (upload) {
        clWaitForEvents(1, &upload);
        clReleaseEvent(upload);
    }
    if (in)
        clReleaseMemObject(in);
    if (out)
        clReleaseMemObject(out);
    free(host);
    free(res);
    return run->problem[0] ? -1 : 0;
}
