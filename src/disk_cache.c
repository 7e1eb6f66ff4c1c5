/* Program binaries kept on disk, so that a new process's first reduction
 * loads a binary instead of compiling (about 80 ms a program on NVIDIA).
 *
 * One file per program, named by a 64-bit hash of its key; the file repeats
 * the whole key, which is compared on load, so a hash collision costs a
 * compile, never a wrong program. The key holds the library version, the
 * platform and driver versions, the device name, the build options and a hash
 * of the sources. Files are written to a temporary name and renamed into
 * place, so readers never see half a file. Every failure falls back to
 * compiling from source. The last problem met is kept for
 * clreduce_get_cache_stats(); nothing is printed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static const char magic[8] = {'C', 'L', 'R', 'B', 'I', 'N', '1', '\n'};

#define FNV_OFFSET 0xcbf29ce484222325ull
/* Room for the file name after the directory (a hash, ".bin", ".tmp.XXXXXX"). */
#define DIR_MAX 4000

static uint64_t fnv1a(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Records the disk cache's latest problem (under the program cache's lock, or
 * before the context is shared). */
__attribute__((format(printf, 2, 3))) static void note(clreduce_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->cache.disk_status, sizeof ctx->cache.disk_status, fmt, ap);
    va_end(ap);
}

static const char *error_text(int err, char *buf, size_t size)
{
    return strerror_r(err, buf, size); /* the GNU variant: returns the text */
}

/* mkdir -p: every missing level, so that a cache directory of any depth can
 * be named. */
static int make_dirs(clreduce_ctx *ctx, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    char path[DIR_MAX + 1], buf[128];
    size_t n = strlen(dir);
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        if (path[i - 1] == '/')
            continue;
        char c = path[i];
        path[i] = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            int err = errno;
            note(ctx, "cannot create directory %s: %s", path, error_text(err, buf, sizeof buf));
            return -1;
        }
        path[i] = c;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        note(ctx, "cannot use %s: not a directory", dir);
        return -1;
    }
    return 0;
}

char *disk_cache_directory(char *why, size_t why_size)
{
    const char *env = getenv("CLREDUCE_CACHE_DIR");
    char path[DIR_MAX + 64];
    int n;
    if (env) {
        if (!*env || strcmp(env, "off") == 0 || strcmp(env, "0") == 0) {
            snprintf(why, why_size, "off: CLREDUCE_CACHE_DIR is \"%s\"", env);
            return NULL;
        }
        n = snprintf(path, sizeof path, "%s", env);
    } else if ((env = getenv("XDG_CACHE_HOME")) && *env) {
        n = snprintf(path, sizeof path, "%s/clreduce", env);
    } else if ((env = getenv("HOME")) && *env) {
        n = snprintf(path, sizeof path, "%s/.cache/clreduce", env);
    } else {
        snprintf(why, why_size, "off: none of CLREDUCE_CACHE_DIR, XDG_CACHE_HOME and HOME is set");
        return NULL;
    }
    if (n < 0 || n > DIR_MAX) {
        snprintf(why, why_size, "off: the directory's path is longer than %d bytes", DIR_MAX);
        return NULL;
    }
    char *dir = strdup(path);
    if (!dir)
        snprintf(why, why_size, "off: out of host memory");
    return dir;
}

/* The key text and the file path of a program. */
static int key_and_path(const clreduce_ctx *ctx, const char *options, const char *const *sources,
                        size_t nsources, char **key, char *path, size_t path_size)
{
    uint64_t source_hash = FNV_OFFSET;
    for (size_t i = 0; i < nsources; i++)
        source_hash = fnv1a(source_hash, sources[i], strlen(sources[i]));
    const device_info *info = &ctx->info;
    size_t size = 512 + strlen(info->platform_version) + strlen(info->name) +
                  strlen(info->driver_version) + strlen(info->device_version) + strlen(options);
    char *text = malloc(size);
    if (!text)
        return -1;
    snprintf(text, size, "clreduce %s\nplatform %s\ndevice %s\ndevice version %s\ndriver %s\n"
                         "options %s\nsources %016llx\n",
             clreduce_version(), info->platform_version, info->name, info->device_version,
             info->driver_version, options, (unsigned long long)source_hash);
    uint64_t h = fnv1a(FNV_OFFSET, text, strlen(text));
    snprintf(path, path_size, "%s/%016llx.bin", ctx->disk_cache_dir, (unsigned long long)h);
    *key = text;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

cl_program disk_cache_load(clreduce_ctx *ctx, const char *options, const char *const *sources,
                           size_t nsources)
{
    if (!ctx->disk_cache_dir)
        return NULL;
    char path[DIR_MAX + 64], *key = NULL;
    if (key_and_path(ctx, options, sources, nsources, &key, path, sizeof path) != 0)
        return NULL;
    cl_program program = NULL;
    unsigned char *binary = NULL;
    char *stored_key = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        goto done;
    char head[8];
    uint32_t key_size;
    uint64_t binary_size;
    if (fread(head, 1, 8, f) != 8 || memcmp(head, magic, 8) != 0 ||
        fread(&key_size, sizeof key_size, 1, f) != 1 || key_size != strlen(key) ||
        !(stored_key = malloc(key_size)) || fread(stored_key, 1, key_size, f) != key_size ||
        memcmp(stored_key, key, key_size) != 0 || fread(&binary_size, sizeof binary_size, 1, f) != 1 ||
        binary_size == 0 || binary_size > ((uint64_t)1 << 30) ||
        !(binary = malloc((size_t)binary_size)) ||
        fread(binary, 1, (size_t)binary_size, f) != (size_t)binary_size)
        goto done;

    size_t length = (size_t)binary_size;
    const unsigned char *binaries[1] = {binary};
    cl_int status, err;
    program = clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &length, binaries, &status,
                                        &err);
    if (err != CL_SUCCESS || status != CL_SUCCESS) {
        if (program)
            clReleaseProgram(program);
        program = NULL;
        goto done;
    }
    if (clBuildProgram(program, 1, &ctx->device, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(program);
        program = NULL;
    }
done:
    if (f)
        fclose(f);
    free(binary);
    free(stored_key);
    free(key);
    return program;
}

void disk_cache_store(clreduce_ctx *ctx, const char *options, const char *const *sources,
                      size_t nsources, cl_program program)
{
    if (!ctx->disk_cache_dir)
        return;
    size_t binary_size = 0;
    cl_uint ndevices = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof ndevices, &ndevices, NULL) !=
            CL_SUCCESS ||
        ndevices != 1 ||
        clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof binary_size, &binary_size,
                         NULL) != CL_SUCCESS ||
        binary_size == 0)
        return;
    char path[DIR_MAX + 64], tmp[DIR_MAX + 96], buf[128], *key = NULL;
    if (key_and_path(ctx, options, sources, nsources, &key, path, sizeof path) != 0)
        return;
    unsigned char *binary = malloc(binary_size);
    int fd = -1;
    FILE *f = NULL;
    if (!binary ||
        clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL) != CL_SUCCESS ||
        make_dirs(ctx, ctx->disk_cache_dir) != 0)
        goto done;
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    if ((fd = mkstemp(tmp)) < 0) {
        int err = errno;
        note(ctx, "cannot write to %s: %s", ctx->disk_cache_dir, error_text(err, buf, sizeof buf));
        goto done;
    }
    if (!(f = fdopen(fd, "wb"))) {
        note(ctx, "cannot write %s: out of host memory", base_name(path));
        goto done;
    }
    fd = -1;
    uint32_t key_size = (uint32_t)strlen(key);
    uint64_t size64 = binary_size;
    int ok = fwrite(magic, 1, sizeof magic, f) == sizeof magic &&
             fwrite(&key_size, sizeof key_size, 1, f) == 1 &&
             fwrite(key, 1, key_size, f) == key_size && fwrite(&size64, sizeof size64, 1, f) == 1 &&
             fwrite(binary, 1, binary_size, f) == binary_size;
    int err = ok ? 0 : errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    f = NULL;
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        err = errno;
    }
    if (!ok) {
        note(ctx, "cannot write %s: %s", base_name(path),
             err ? error_text(err, buf, sizeof buf) : "write failed");
        unlink(tmp);
    }
done:
    if (fd >= 0) {
        close(fd);
        unlink(tmp);
    }
    free(binary);
    free(key);
}
