/* unit.order: how the single pass and the look-back order memory between
 * work-groups (CLR_ORDER), decided from what a device reports. No device is
 * needed: the decision is a function of the device's description. An
 * OpenCL C 3.0 device takes the OpenCL C atomics only when it reports both
 * acquire-release orders and device scope, for atomics and for fences;
 * without them it must not be handed kernels that use them, and a device
 * with them must not lose the look-back scan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "internal.h"

#define ALL_CAPS ((cl_bitfield)0x7f) /* every order and scope of OpenCL 3.0 */
#define NEEDED (DEVICE_ATOMIC_ORDER_ACQ_REL | DEVICE_ATOMIC_SCOPE_DEVICE)
#define RELAXED ((cl_bitfield)1 << 0)
#define SCOPE_WORK_GROUP ((cl_bitfield)1 << 4)

static device_info device(device_vendor vendor, cl_device_type type, unsigned clc_major,
                          unsigned clc_minor, cl_bitfield memory_caps, cl_bitfield fence_caps)
{
    device_info info;
    memset(&info, 0, sizeof info);
    info.vendor = vendor;
    info.type = type;
    info.cl_major = clc_major >= 2 ? clc_major : 1;
    info.clc_major = clc_major;
    info.clc_minor = clc_minor;
    info.atomic_memory_caps = memory_caps;
    info.atomic_fence_caps = fence_caps;
    return info;
}

static void expect(const char *what, device_info info, int kind)
{
    int got = order_kind_for(&info);
    if (got != kind)
        print_error("%s: order kind %d, expected %d\n", what, got, kind);
    assert_int_equal(got, kind);
}

static void test_opencl_c_3(void **state)
{
    (void)state;
    const cl_device_type gpu = CL_DEVICE_TYPE_GPU;
    expect("3.0 GPU, every capability", device(VENDOR_AMD, gpu, 3, 0, ALL_CAPS, ALL_CAPS),
           CLR_ORDER_CL20);
    expect("3.0 GPU, just what is needed", device(VENDOR_INTEL, gpu, 3, 0, NEEDED, NEEDED),
           CLR_ORDER_CL20);
    expect("3.1 GPU, every capability", device(VENDOR_OTHER, gpu, 3, 1, ALL_CAPS, ALL_CAPS),
           CLR_ORDER_CL20);
    /* What Intel's CPU runtime 2026.2 and PoCL 3.1 report (clinfo). */
    expect("Intel CPU, OpenCL C 3.1", device(VENDOR_INTEL, CL_DEVICE_TYPE_CPU, 3, 1, 0x77, 0x7f),
           1);
    expect("PoCL CPU, OpenCL C 3.0", device(VENDOR_POCL, CL_DEVICE_TYPE_CPU, 3, 0, 0x77, 0x3f),
           CLR_ORDER_CL20);

    /* The minimum OpenCL 3.0 requires, or less: plain fences. */
    expect("3.0 GPU, no capabilities reported", device(VENDOR_AMD, gpu, 3, 0, 0, 0),
           CLR_ORDER_NONE);
    expect("3.0 GPU, relaxed work-group atomics only",
           device(VENDOR_AMD, gpu, 3, 0, RELAXED | SCOPE_WORK_GROUP,
                  RELAXED | DEVICE_ATOMIC_ORDER_ACQ_REL | SCOPE_WORK_GROUP),
           0);
    expect("3.0 GPU, atomics without device scope",
           device(VENDOR_AMD, gpu, 3, 0, ALL_CAPS & ~DEVICE_ATOMIC_SCOPE_DEVICE, ALL_CAPS),
           CLR_ORDER_NONE);
    expect("3.0 GPU, atomics without acquire-release",
           device(VENDOR_AMD, gpu, 3, 0, ALL_CAPS & ~DEVICE_ATOMIC_ORDER_ACQ_REL, ALL_CAPS),
           CLR_ORDER_NONE);
    expect("3.0 GPU, fences without device scope",
           device(VENDOR_AMD, gpu, 3, 0, ALL_CAPS, ALL_CAPS & ~DEVICE_ATOMIC_SCOPE_DEVICE),
           CLR_ORDER_NONE);
    expect("3.0 GPU, fences without acquire-release",
           device(VENDOR_AMD, gpu, 3, 0, ALL_CAPS, ALL_CAPS & ~DEVICE_ATOMIC_ORDER_ACQ_REL),
           CLR_ORDER_NONE);
}

static void test_other_versions(void **state)
{
    (void)state;
    const cl_device_type gpu = CL_DEVICE_TYPE_GPU;
    /* OpenCL C 2.0 has the orders and scopes by definition. */
    expect("2.0 GPU", device(VENDOR_AMD, gpu, 2, 0, 0, 0), CLR_ORDER_CL20);
    expect("2.2 GPU", device(VENDOR_OTHER, gpu, 2, 2, 0, 0), CLR_ORDER_CL20);
    expect("1.2 GPU", device(VENDOR_AMD, gpu, 1, 2, 0, 0), CLR_ORDER_NONE);
    expect("1.2 GPU reporting capabilities", device(VENDOR_OTHER, gpu, 1, 2, ALL_CAPS, ALL_CAPS),
           0);
    expect("1.2 CPU", device(VENDOR_POCL, CL_DEVICE_TYPE_CPU, 1, 2, 0, 0), CLR_ORDER_NONE);
    /* NVIDIA: PTX fences, whatever its OpenCL C version. */
    expect("NVIDIA 1.2", device(VENDOR_NVIDIA, gpu, 1, 2, 0, 0), CLR_ORDER_PTX);
    expect("NVIDIA 3.0", device(VENDOR_NVIDIA, gpu, 3, 0, ALL_CAPS, ALL_CAPS), CLR_ORDER_PTX);
    expect("NVIDIA 3.0, no capabilities", device(VENDOR_NVIDIA, gpu, 3, 0, 0, 0), CLR_ORDER_PTX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opencl_c_3),
        cmocka_unit_test(test_other_versions),
    };
    return cmocka_run_group_tests_name("unit.fence", tests, NULL, NULL) ? 1 : 0;
}
