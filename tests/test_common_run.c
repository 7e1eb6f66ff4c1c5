/* One reduction or scan on the device with its buffers checked around it
 * (see test_common.h). */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one reduction or scan on the device ------------------------------------------ */

static int all_bytes(const unsigned char *p, size_t n, unsigned char b)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != b)
            return 0;
    return 1;
}

/* After a call that returned `status` with `done` (TC_EVENT_SENTINEL before
 * the call): a success must have given an event of `queue` that completes;
 * a failure must have left the out-parameter alone. Writes the problem, if
 * any; returns whether there is a done event to wait for and release. */
static int check_done(clreduce_status status, cl_event done, cl_command_queue queue,
                      char *problem, size_t size)
{
    int have_done = status == CLREDUCE_SUCCESS && done && done != TC_EVENT_SENTINEL;
    if (status == CLREDUCE_SUCCESS && !have_done) {
        snprintf(problem, size, "success but no done event");
    } else if (have_done) {
        cl_int st = CL_QUEUED;
        cl_command_queue eq = NULL;
        cl_int err = clWaitForEvents(1, &done);
        if (err == CL_SUCCESS)
            err = clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
        if (err == CL_SUCCESS)
            err = clGetEventInfo(done, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, NULL);
        if (err != CL_SUCCESS)
            snprintf(problem, size, "waiting on done failed: %d", (int)err);
        else if (st != CL_COMPLETE)
            snprintf(problem, size, "done event not complete after clWaitForEvents (status %d)",
                     (int)st);
        else if (eq != queue)
            snprintf(problem, size, "done event belongs to another queue");
    } else if (done != TC_EVENT_SENTINEL) {
        snprintf(problem, size, "done written although the call failed (%s)",
                 clreduce_status_string(status));
    }
    return have_done;
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
    int have_done = check_done(run->status, done, queue, run->problem, sizeof run->problem);
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

static const char *const placement_names[] = {"separate buffers", "one buffer, output after input",
                                              "one buffer, output before input", "in place"};

const char *tc_placement_name(tc_placement where)
{
    return (unsigned)where < ARRAY_SIZE(placement_names) ? placement_names[where] : "?";
}

/* Buffers of one scan: images before the scan and after it. */
typedef struct scan_buffers {
    size_t count[2]; /* elements of buffer 0 (input) and 1 (output) */
    unsigned char *before[2], *after[2];
    cl_mem mem[2];
    int nbuf;
} scan_buffers;

static void fill_elements(clreduce_type type, unsigned char *buf, size_t from, size_t to,
                          const tc_value *v)
{
    for (size_t i = from; i < to; i++)
        tc_set(type, buf, i, v);
}

static void free_scan_buffers(scan_buffers *b)
{
    for (int i = 0; i < 2; i++) {
        free(b->before[i]);
        free(b->after[i]);
        if (b->mem[i])
            clReleaseMemObject(b->mem[i]);
    }
}

int tc_run_scan(clreduce_ctx *ctx, cl_command_queue queue, clreduce_op op, clreduce_type type,
                clreduce_scan_kind kind, clreduce_scan_variant variant, const void *data,
                size_t n, const tc_scan_layout *l, tc_scan_run *res)
{
    memset(res, 0, sizeof *res);
    res->status = CLREDUCE_ERROR_OPENCL;
    const size_t es = tc_elem_size(type);
    scan_buffers b;
    memset(&b, 0, sizeof b);
    tc_value poison;
    tc_poison(op, type, &poison);
    int out_buf = 0;

    /* One buffer unless separate; in one buffer, two ranges lie `gap` apart. */
    const size_t first = l->lead, second = l->lead + n + l->gap;
    b.nbuf = 1;
    switch (l->where) {
    case TC_SEPARATE:
        b.nbuf = 2;
        out_buf = 1;
        res->in_off = l->lead;
        res->out_off = l->out_lead;
        b.count[0] = l->lead + n + l->tail;
        b.count[1] = l->out_lead + n + l->tail;
        break;
    case TC_OUTPUT_AFTER:
    case TC_OUTPUT_BEFORE:
        res->in_off = l->where == TC_OUTPUT_AFTER ? first : second;
        res->out_off = l->where == TC_OUTPUT_AFTER ? second : first;
        b.count[0] = second + n + l->tail;
        break;
    case TC_IN_PLACE:
        res->in_off = res->out_off = first;
        b.count[0] = first + n + l->tail;
        break;
    }
    for (int i = 0; i < b.nbuf; i++) {
        b.before[i] = malloc(b.count[i] * es);
        b.after[i] = malloc(b.count[i] * es);
        if (!b.before[i] || !b.after[i]) {
            snprintf(res->problem, sizeof res->problem, "out of host memory");
            free_scan_buffers(&b);
            return 0;
        }
    }
    /* Poison around the input, sentinel bytes around and in the output: in
     * one buffer, on the input's side where the output lies (after it in
     * place). */
    unsigned char *img = b.before[0];
    const size_t in_end = res->in_off + n;
    if (out_buf == 0 && res->out_off < res->in_off)
        memset(img, TC_SENTINEL_BYTE, res->in_off * es);
    else
        fill_elements(type, img, 0, res->in_off, &poison);
    if (out_buf == 0 && res->out_off >= res->in_off)
        memset(img + in_end * es, TC_SENTINEL_BYTE, (b.count[0] - in_end) * es);
    else
        fill_elements(type, img, in_end, b.count[0], &poison);
    if (out_buf == 1)
        memset(b.before[1], TC_SENTINEL_BYTE, b.count[1] * es);
    if (n)
        memcpy(img + res->in_off * es, data, n * es);

    cl_context cl = clreduce_get_cl_context(ctx);
    cl_int err = CL_SUCCESS;
    cl_event upload = NULL, done = TC_EVENT_SENTINEL;
    for (int i = 0; i < b.nbuf && err == CL_SUCCESS; i++)
        b.mem[i] = clCreateBuffer(cl, CL_MEM_READ_WRITE, b.count[i] * es, NULL, &err);
    if (err == CL_SUCCESS && b.nbuf == 2)
        err = clEnqueueWriteBuffer(queue, b.mem[1], CL_TRUE, 0, b.count[1] * es, b.before[1], 0,
                                   NULL, NULL);
    if (err == CL_SUCCESS) {
        /* Through the wait list: uploaded without blocking (on the upload
         * queue, if any), so that only the event orders it before the scan. */
        if (l->use_wait_list)
            err = clEnqueueWriteBuffer(l->upload_queue ? l->upload_queue : queue, b.mem[0],
                                       CL_FALSE, 0, b.count[0] * es, b.before[0], 0, NULL,
                                       &upload);
        else
            err = clEnqueueWriteBuffer(queue, b.mem[0], CL_TRUE, 0, b.count[0] * es, b.before[0],
                                       0, NULL, NULL);
    }
    if (err != CL_SUCCESS) {
        snprintf(res->problem, sizeof res->problem, "setting up the buffers failed: %d",
                 (int)err);
        goto finish;
    }

    res->status = clreduce_scan(ctx, queue, op, type, kind, variant, b.mem[0], res->in_off, n,
                                b.mem[out_buf], res->out_off, upload ? 1 : 0,
                                upload ? &upload : NULL, &done);
    int have_done = check_done(res->status, done, queue, res->problem, sizeof res->problem);
    /* Read behind the done event only, on the read queue if there is one. */
    cl_command_queue rq = have_done && l->read_queue ? l->read_queue : queue;
    for (int i = 0; i < b.nbuf && err == CL_SUCCESS; i++)
        err = clEnqueueReadBuffer(rq, b.mem[i], CL_TRUE, 0, b.count[i] * es, b.after[i],
                                  have_done ? 1 : 0, have_done ? &done : NULL, NULL);
    if (have_done)
        clReleaseEvent(done);
    if (err == CL_SUCCESS)
        err = clFinish(queue);
    if (err != CL_SUCCESS) {
        if (!res->problem[0])
            snprintf(res->problem, sizeof res->problem, "reading the buffers failed: %d",
                     (int)err);
        goto finish;
    }

    /* Everything outside the output range is as it was (on failure, the
     * output range too). */
    size_t out_from = res->status == CLREDUCE_SUCCESS ? res->out_off : 0;
    size_t out_to = res->status == CLREDUCE_SUCCESS ? res->out_off + n : 0;
    for (int i = 0; i < b.nbuf; i++)
        for (size_t e = 0; e < b.count[i]; e++) {
            if (i == out_buf && e >= out_from && e < out_to)
                continue;
            if (memcmp(b.before[i] + e * es, b.after[i] + e * es, es) != 0) {
                if (!res->outside_changed++) {
                    res->first_changed = e;
                    res->changed_in_input = i != out_buf;
                }
            }
        }
    if (res->status == CLREDUCE_SUCCESS) {
        res->output = malloc(n ? n * es : 1);
        if (!res->output) {
            snprintf(res->problem, sizeof res->problem, "out of host memory");
            goto finish;
        }
        memcpy(res->output, b.after[out_buf] + res->out_off * es, n * es);
        res->range_checked = 1;
        res->ok = tc_check_scan(op, type, kind, data, n, res->output, &res->mismatch) &&
                  res->outside_changed == 0 && !res->problem[0];
    }

finish:
    if (upload) {
        clWaitForEvents(1, &upload);
        clReleaseEvent(upload);
    }
    free_scan_buffers(&b);
    return res->ok;
}
