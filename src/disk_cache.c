/* Program binaries kept on disk, so that a new process's first reduction
 * loads a binary instead of compiling (about 80 ms a program on NVIDIA).
 *
 * One file per program, named by a 64-bit hash of its key. The key holds the
 * library version, the platform and driver versions, the device name, the
 * build options and a hash of the sources. A file is
 *
 *     magic "CLRBIN2\n" | key size (uint32) | key | binary size (uint64) |
 *     binary | checksum (uint64)
 *
 * the checksum being 64-bit FNV-1a over every byte before it. A runtime
 * handed a damaged binary may crash rather than fail (Intel's CPU runtime
 * runs what it is given), so nothing reaches the runtime before the whole
 * file has been verified; the key is compared in full and covered by the
 * checksum, so that a hash collision, a file copied under another name or a
 * binary stored under another program's key costs a compile, never a wrong
 * program. Files of the first layout ("CLRBIN1", no checksum) are stale.
 *
 * Files are written to a temporary name and renamed into place, so readers
 * never see half a file; a file cut short by a crash of the machine fails its
 * checksum. Every failure falls back to compiling from source, and the
 * program built then replaces the file. The last problem met is kept for
 * clreduce_get_cache_stats(); nothing is printed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static const char magic[8] = {'C', 'L', 'R', 'B', 'I', 'N', '2', '\n'};

#define FNV_OFFSET 0xcbf29ce484222325ull
#define KEY_MAX ((uint32_t)1 << 20)
#define BINARY_MAX ((uint64_t)1 << 30)
#define HEAD_SIZE (sizeof magic + sizeof(uint32_t)) /* before the key */
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

/* The whole file (malloc'd) in *data, or NULL with a note when it exists but
 * cannot be read; a missing file is no problem. */
static unsigned char *read_file(clreduce_ctx *ctx, const char *path, size_t *size)
{
    char buf[128];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT && errno != ENOTDIR) {
            int err = errno;
            note(ctx, "cannot read %s: %s", base_name(path), error_text(err, buf, sizeof buf));
        }
        return NULL;
    }
    struct stat st;
    unsigned char *data = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        note(ctx, "%s: not a regular file; compiled from source", base_name(path));
    } else if ((uint64_t)st.st_size > HEAD_SIZE + KEY_MAX + 2 * sizeof(uint64_t) + BINARY_MAX) {
        note(ctx, "%s: too large for a cache file; compiled from source", base_name(path));
    } else if (!(data = malloc(st.st_size ? (size_t)st.st_size : 1))) {
        note(ctx, "%s: out of host memory to read it", base_name(path));
    } else {
        size_t done = 0;
        while (done < (size_t)st.st_size) {
            ssize_t got = read(fd, data + done, (size_t)st.st_size - done);
            if (got <= 0) {
                if (got < 0 && errno == EINTR)
                    continue;
                int err = got < 0 ? errno : 0;
                note(ctx, "cannot read %s: %s", base_name(path),
                     err ? error_text(err, buf, sizeof buf) : "it shrank while being read");
                free(data);
                data = NULL;
                break;
            }
            done += (size_t)got;
        }
        *size = done;
    }
    close(fd);
    return data;
}

/* Why the file `data` (size bytes) is not a good binary for `key`, or NULL
 * when it is one: then *binary and *binary_size locate the binary. */
static const char *check_file(const unsigned char *data, size_t size, const char *key,
                              const unsigned char **binary, size_t *binary_size)
{
    if (size == 0)
        return "empty";
    if (size < sizeof magic)
        return "truncated";
    if (memcmp(data, magic, sizeof magic) != 0)
        return memcmp(data, magic, 6) == 0 ? "written in another layout of the file"
                                           : "not a clreduce cache file";
    uint32_t key_size;
    uint64_t bin_size, sum;
    if (size < HEAD_SIZE)
        return "truncated";
    memcpy(&key_size, data + sizeof magic, sizeof key_size);
    if (key_size > KEY_MAX)
        return "damaged (key size)";
    size_t at = HEAD_SIZE + key_size;
    if (size < at + sizeof bin_size)
        return "truncated";
    memcpy(&bin_size, data + at, sizeof bin_size);
    at += sizeof bin_size;
    if (bin_size == 0 || bin_size > BINARY_MAX)
        return "damaged (binary size)";
    if (size < at + bin_size + sizeof sum)
        return "truncated";
    if (size > at + bin_size + sizeof sum)
        return "damaged (bytes after the checksum)";
    memcpy(&sum, data + at + bin_size, sizeof sum);
    if (sum != fnv1a(FNV_OFFSET, data, at + bin_size))
        return "damaged (checksum mismatch)";
    if (key_size != strlen(key) || memcmp(data + HEAD_SIZE, key, key_size) != 0)
        return "holds another program";
    *binary = data + at;
    *binary_size = (size_t)bin_size;
    return NULL;
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
    size_t size = 0, length = 0;
    const unsigned char *binary = NULL;
    unsigned char *data = read_file(ctx, path, &size);
    if (!data)
        goto done;
    const char *why = check_file(data, size, key, &binary, &length);
    if (why) {
        note(ctx, "%s: %s; compiled from source", base_name(path), why);
        goto done;
    }

    const unsigned char *binaries[1] = {binary};
    cl_int status = CL_SUCCESS, err;
    program = clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &length, binaries, &status,
                                        &err);
    if (err != CL_SUCCESS || status != CL_SUCCESS) {
        note(ctx, "%s: the runtime refused the binary (%s); compiled from source",
             base_name(path), cl_error_name(err != CL_SUCCESS ? err : status));
        if (program)
            clReleaseProgram(program);
        program = NULL;
        goto done;
    }
    if ((err = clBuildProgram(program, 1, &ctx->device, options, NULL, NULL)) != CL_SUCCESS) {
        note(ctx, "%s: building the binary failed (%s); compiled from source", base_name(path),
             cl_error_name(err));
        clReleaseProgram(program);
        program = NULL;
    }
done:
    free(data);
    free(key);
    return program;
}

void disk_cache_reject(clreduce_ctx *ctx, const char *options, const char *const *sources,
                       size_t nsources, const char *why)
{
    char path[DIR_MAX + 64], *key = NULL;
    if (!ctx->disk_cache_dir ||
        key_and_path(ctx, options, sources, nsources, &key, path, sizeof path) != 0)
        return;
    note(ctx, "%s: %s; compiled from source", base_name(path), why);
    free(key);
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
        binary_size == 0 || binary_size > BINARY_MAX)
        return;
    char path[DIR_MAX + 64], tmp[DIR_MAX + 96], buf[128], *key = NULL;
    if (key_and_path(ctx, options, sources, nsources, &key, path, sizeof path) != 0)
        return;
    unsigned char *binary = malloc(binary_size);
    int fd = -1;
    FILE *f = NULL;
    if (!binary ||
        clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL) !=
            CL_SUCCESS ||
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
    uint64_t size64 = binary_size, sum = FNV_OFFSET;
    sum = fnv1a(sum, magic, sizeof magic);
    sum = fnv1a(sum, &key_size, sizeof key_size);
    sum = fnv1a(sum, key, key_size);
    sum = fnv1a(sum, &size64, sizeof size64);
    sum = fnv1a(sum, binary, binary_size);
    int ok = fwrite(magic, 1, sizeof magic, f) == sizeof magic &&
             fwrite(&key_size, sizeof key_size, 1, f) == 1 &&
             fwrite(key, 1, key_size, f) == key_size && fwrite(&size64, sizeof size64, 1, f) == 1 &&
             fwrite(binary, 1, binary_size, f) == binary_size &&
             fwrite(&sum, sizeof sum, 1, f) == 1;
    int err = ok ? 0 : errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    f = NULL;
    if (ok && rename(tmp, path) != 0) {
        /* An empty directory of the file's name (it is ours to remove) would
         * otherwise keep every process compiling this program. */
        ok = errno == EISDIR && rmdir(path) == 0 && rename(tmp, path) == 0;
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
