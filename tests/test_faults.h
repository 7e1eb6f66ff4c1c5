/* What the files of unit.faults share: test_faults.c runs every scenario of
 * test_faults_scenarios.c with each of its OpenCL calls failed, and
 * test_faults_create.c does the same for the create functions. */
#ifndef CLREDUCE_TEST_FAULTS_H
#define CLREDUCE_TEST_FAULTS_H

#include "fault_shim.h"
#include "test_common.h"

/* ---- scenarios ------------------------------------------------------------------ */

typedef enum operation { REDUCE, SCAN, SEGMENTS } operation;

typedef enum entry_point { ENTRY_MEM, ENTRY_HOST } entry_point;

typedef enum disk_mode {
    DISK_OFF,  /* CLREDUCE_CACHE_DIR=off */
    DISK_COLD, /* an empty cache: build from source, then store the binary */
    DISK_WARM  /* the binary is on disk: load it */
} disk_mode;

typedef struct scenario {
    const char *name;
    operation operation;
    entry_point entry;
    clreduce_op op;
    clreduce_type type;
    int variant;             /* a clreduce_variant, or a clreduce_scan_variant */
    clreduce_scan_kind kind; /* scans */
    int in_place;            /* scans: the output is the input range */
    size_t count;
    size_t offset;           /* ENTRY_MEM: elements before the input range */
    size_t result_offset;    /* ENTRY_MEM: the result element, or the output range */
    int out_of_order;
    int warm;                /* a successful call first: the program is cached */
    size_t warm_count;       /* that call's count, if not `count` */
    disk_mode disk;
    /* Segments: the context's segment_passes (clreduce_settings; with 1,
     * work-groups of 64 and scalar loads, so that the chunks are many). */
    unsigned segment_passes;
} scenario;

extern const scenario scenarios[];
extern const size_t scenario_count;

/* ---- shared by the tests -------------------------------------------------------- */

extern cl_context g_cl;
extern cl_device_id g_device;
extern char g_cache_dir[4096]; /* the disk cache of the scenarios that use it */
extern unsigned long g_faults; /* calls failed alone (k values), over the run */

/* Notes the call sites of the calls numbered in fail[0 .. n) of the last
 * trace: the places in the library whose failure has been seen. */
void note_failed_sites(const unsigned *fail, size_t n);

/* The status a call must return after `err`. */
clreduce_status expected_status(cl_int err);

void assert_live_equal(const char *what, const fault_objects *got, const fault_objects *want);

/* Prints the OpenCL calls of the last trace, n of them. */
void print_trace(const char *name, unsigned n);

void test_create_faults(void **state);
void test_create_default_faults(void **state);

#endif
