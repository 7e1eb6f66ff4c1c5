// How cub_segmented and cub_operators time one job: a first call, checked;
// the warm-up; timed calls, each right after an untimed one (call_us: the
// median of cudaEventRecord just before and just after the call; host_us:
// the median host time inside it), each checked; then 3 batches of calls
// enqueued back to back between two cudaDeviceSynchronize, as many as take
// 20 ms by call_us (10 to 2000), each checked (b2b_us: the median host time
// per call). A job has stream, enqueue() (one call), poison() (makes its
// results wrong before a checked call) and check() ("" when the last
// results are right, else what is wrong).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cub_report.h"

namespace {

template <typename Job>
Row time_job(Job &j, int runs, int warmup, cudaEvent_t start, cudaEvent_t stop)
{
    Row r;
    r.status = "ok";
    j.poison();
    j.enqueue();
    std::string why = j.check();
    if (!why.empty()) {
        r.status = "WRONG RESULT: first call: " + why;
        return r;
    }
    for (int w = 0; w < warmup; w++)
        j.enqueue();
    std::vector<double> times, host;
    for (int i = 0; i < runs; i++) {
        j.enqueue(); // the untimed call before a timed one
        j.poison();
        CHECK(cudaStreamSynchronize(j.stream));
        CHECK(cudaEventRecord(start, j.stream));
        double h0 = now_us();
        j.enqueue();
        host.push_back(now_us() - h0);
        CHECK(cudaEventRecord(stop, j.stream));
        CHECK(cudaEventSynchronize(stop));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms * 1e3);
        why = j.check();
        if (!why.empty()) {
            r.status = "WRONG RESULT: timed run " + std::to_string(i + 1) + ": " + why;
            return r;
        }
    }
    r.call_us = median(times);
    r.host_us = median(host);
    int calls = (int)std::ceil(20e3 / r.call_us);
    calls = std::min(std::max(calls, 10), 2000);
    std::vector<double> batches;
    for (int b = 0; b < 3; b++) {
        j.poison();
        CHECK(cudaDeviceSynchronize());
        double t0 = now_us();
        for (int i = 0; i < calls; i++)
            j.enqueue();
        CHECK(cudaDeviceSynchronize());
        batches.push_back((now_us() - t0) / calls);
        why = j.check();
        if (!why.empty()) {
            r.status = "WRONG RESULT: back-to-back batch " + std::to_string(b + 1) + ": " + why;
            return r;
        }
    }
    r.b2b_us = median(batches);
    r.b2b_calls = calls;
    return r;
}

} // namespace
