/* What the library needs to know about a device, read once per context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* OpenCL 2.1/3.0 queries, spelled out: the build targets the 1.2 headers. */
#define QUERY_MAX_NUM_SUB_GROUPS 0x105C
#define QUERY_ATOMIC_MEMORY_CAPABILITIES 0x1063
#define QUERY_ATOMIC_FENCE_CAPABILITIES 0x1064
#define QUERY_OPENCL_C_ALL_VERSIONS 0x1066
#define QUERY_OPENCL_C_FEATURES 0x106F
#define QUERY_WARP_SIZE_NV 0x4003
#define NAME_VERSION_MAX_NAME_SIZE 64

typedef struct name_version {
    cl_uint version;
    char name[NAME_VERSION_MAX_NAME_SIZE];
} name_version;

/* Whether the space-separated list holds `word` exactly. */
static int list_has(const char *list, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += len) {
        int starts = p == list || p[-1] == ' ';
        int ends = p[len] == '\0' || p[len] == ' ';
        if (starts && ends)
            return 1;
    }
    return 0;
}

static void parse_version(const char *text, const char *prefix, unsigned *major, unsigned *minor)
{
    const char *p = strstr(text, prefix);
    *major = *minor = 0;
    if (p)
        sscanf(p + strlen(prefix), "%u.%u", major, minor);
}

/* The string (malloc'd), or NULL with the reason in *err. */
static char *query_string(cl_device_id device, cl_device_info what, cl_int *err)
{
    size_t size = 0;
    if ((*err = clGetDeviceInfo(device, what, 0, NULL, &size)) != CL_SUCCESS)
        return NULL;
    char *text = malloc(size + 1);
    if (!text) {
        *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    if ((*err = clGetDeviceInfo(device, what, size, text, NULL)) != CL_SUCCESS) {
        free(text);
        return NULL;
    }
    text[size] = '\0';
    return text;
}

/* Highest OpenCL C version: the 3.0 list where the device has one, else the
 * CL_DEVICE_OPENCL_C_VERSION string. */
static void query_c_version(cl_device_id device, unsigned *major, unsigned *minor)
{
    char text[256] = "";
    clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_VERSION, sizeof text - 1, text, NULL);
    parse_version(text, "OpenCL C ", major, minor);
    size_t size = 0;
    if (clGetDeviceInfo(device, QUERY_OPENCL_C_ALL_VERSIONS, 0, NULL, &size) != CL_SUCCESS ||
        size < sizeof(name_version))
        return;
    name_version *list = malloc(size);
    if (!list)
        return;
    if (clGetDeviceInfo(device, QUERY_OPENCL_C_ALL_VERSIONS, size, list, NULL) == CL_SUCCESS) {
        for (size_t i = 0; i < size / sizeof *list; i++) {
            unsigned ma = list[i].version >> 22, mi = (list[i].version >> 12) & 0x3ff;
            if (ma > *major || (ma == *major && mi > *minor)) {
                *major = ma;
                *minor = mi;
            }
        }
    }
    free(list);
}

static int query_has_subgroup_feature(cl_device_id device)
{
    size_t size = 0;
    if (clGetDeviceInfo(device, QUERY_OPENCL_C_FEATURES, 0, NULL, &size) != CL_SUCCESS ||
        size < sizeof(name_version))
        return 0;
    name_version *list = malloc(size);
    int found = 0;
    if (list && clGetDeviceInfo(device, QUERY_OPENCL_C_FEATURES, size, list, NULL) == CL_SUCCESS) {
        for (size_t i = 0; i < size / sizeof *list; i++)
            if (strcmp(list[i].name, "__opencl_c_subgroups") == 0)
                found = 1;
    }
    free(list);
    return found;
}

static device_vendor classify_vendor(const char *vendor, const char *platform_name)
{
    if (strstr(platform_name, "Portable Computing Language"))
        return VENDOR_POCL;
    if (strstr(vendor, "NVIDIA"))
        return VENDOR_NVIDIA;
    if (strstr(vendor, "Advanced Micro Devices") || strstr(vendor, "AMD"))
        return VENDOR_AMD;
    if (strstr(vendor, "Intel"))
        return VENDOR_INTEL;
    return VENDOR_OTHER;
}

clreduce_status device_info_query(cl_device_id device, device_info *info, char *why,
                                  size_t why_size)
{
    memset(info, 0, sizeof *info);
    cl_platform_id platform = NULL;
    char platform_name[256] = "";
    cl_int err = clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof info->name - 1, info->name, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_VENDOR, sizeof info->vendor_name - 1,
                              info->vendor_name, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DRIVER_VERSION, sizeof info->driver_version - 1,
                              info->driver_version, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_VERSION, sizeof info->device_version - 1,
                              info->device_version, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof info->type, &info->type, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof info->compute_units,
                              &info->compute_units, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                              sizeof info->max_work_group_size, &info->max_work_group_size, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof info->local_mem_size,
                              &info->local_mem_size, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof info->max_alloc_size,
                              &info->max_alloc_size, NULL);
    if (err == CL_SUCCESS)
        err = clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name - 1,
                                platform_name, NULL);
    if (err == CL_SUCCESS)
        err = clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof info->platform_version - 1,
                                info->platform_version, NULL);
    if (err != CL_SUCCESS) {
        snprintf(why, why_size, "querying the device failed: %s", cl_error_name(err));
        return err == CL_INVALID_DEVICE ? CLREDUCE_ERROR_INVALID_ARGUMENT : status_from_cl(err);
    }

    char *extensions = query_string(device, CL_DEVICE_EXTENSIONS, &err);
    if (!extensions) {
        snprintf(why, why_size, "querying the device's extensions failed: %s", cl_error_name(err));
        return status_from_cl(err);
    }
    info->vendor = classify_vendor(info->vendor_name, platform_name);
    parse_version(info->device_version, "OpenCL ", &info->cl_major, &info->cl_minor);
    query_c_version(device, &info->clc_major, &info->clc_minor);

    cl_device_fp_config fp64 = 0;
    clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
    info->has_fp64 = list_has(extensions, "cl_khr_fp64") || fp64 != 0;
    cl_device_fp_config fp32 = 0;
    clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp32, &fp32, NULL);
    info->float_denorms = (fp32 & CL_FP_DENORM) != 0;
    cl_uint native_float = 0;
    clGetDeviceInfo(device, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, sizeof native_float,
                    &native_float, NULL);
    info->native_float_width = native_float;
    info->has_int64_atomics = list_has(extensions, "cl_khr_int64_base_atomics");

    /* A device that answers the 2.1 query with 0 has no sub-groups whatever
     * its extension string says; one that can't answer is taken at its
     * word. Sub-group built-ins need OpenCL C 2.0 or later to be declared. */
    cl_uint max_sub_groups = 1;
    if (info->cl_major >= 2)
        clGetDeviceInfo(device, QUERY_MAX_NUM_SUB_GROUPS, sizeof max_sub_groups, &max_sub_groups,
                        NULL);
    info->has_subgroups = (list_has(extensions, "cl_khr_subgroups") ||
                           query_has_subgroup_feature(device)) &&
                          max_sub_groups > 0 && info->clc_major >= 2;
    info->has_subgroup_shuffle = info->has_subgroups &&
                                 list_has(extensions, "cl_khr_subgroup_shuffle");
    info->has_subgroup_shuffle_relative =
        info->has_subgroups && list_has(extensions, "cl_khr_subgroup_shuffle_relative");

    /* Optional in OpenCL C 3.0, the acquire-release orders and the device
     * scope of the look-back's atomics and the single pass's fence; a device
     * that cannot answer is taken to lack them. */
    if (info->cl_major >= 3) {
        if (clGetDeviceInfo(device, QUERY_ATOMIC_MEMORY_CAPABILITIES,
                            sizeof info->atomic_memory_caps, &info->atomic_memory_caps,
                            NULL) != CL_SUCCESS)
            info->atomic_memory_caps = 0;
        if (clGetDeviceInfo(device, QUERY_ATOMIC_FENCE_CAPABILITIES,
                            sizeof info->atomic_fence_caps, &info->atomic_fence_caps,
                            NULL) != CL_SUCCESS)
            info->atomic_fence_caps = 0;
    }

    if (info->vendor == VENDOR_NVIDIA) {
        cl_uint warp = 0;
        if (clGetDeviceInfo(device, QUERY_WARP_SIZE_NV, sizeof warp, &warp, NULL) == CL_SUCCESS)
            info->nv_warp_size = warp;
    }
    free(extensions);
    return CLREDUCE_SUCCESS;
}

int path_usable(const device_info *info, clreduce_subgroup_path path, const char **lacks)
{
    switch (path) {
    case CLREDUCE_SUBGROUP_PATH_NV_PTX:
        *lacks = "an NVIDIA device with 32-wide warps (CL_DEVICE_WARP_SIZE_NV) for inline PTX "
                 "shfl.sync";
        return info->vendor == VENDOR_NVIDIA && info->nv_warp_size == 32;
    case CLREDUCE_SUBGROUP_PATH_SHUFFLE_RELATIVE:
        *lacks = "cl_khr_subgroup_shuffle_relative";
        return info->has_subgroup_shuffle_relative;
    case CLREDUCE_SUBGROUP_PATH_SHUFFLE:
        *lacks = "cl_khr_subgroup_shuffle";
        return info->has_subgroup_shuffle;
    case CLREDUCE_SUBGROUP_PATH_REDUCE:
        *lacks = "cl_khr_subgroups (or the OpenCL C 3.0 feature __opencl_c_subgroups)";
        return info->has_subgroups;
    default:
        *lacks = "sub-group support (no cl_khr_subgroups, no __opencl_c_subgroups, not an NVIDIA "
                 "GPU)";
        return 0;
    }
}

int path_needs_cl_std(clreduce_subgroup_path path)
{
    /* The cl_khr_subgroup* built-ins are declared only from OpenCL C 2.0 on;
     * NV_PTX is inline assembly in any version. */
    return path == CLREDUCE_SUBGROUP_PATH_SHUFFLE_RELATIVE ||
           path == CLREDUCE_SUBGROUP_PATH_SHUFFLE || path == CLREDUCE_SUBGROUP_PATH_REDUCE;
}
