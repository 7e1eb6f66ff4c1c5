/* A failed build's log, appended to the error message with every position
 * named by file and line.
 *
 * Every embedded source opens with `#line 1 "<file>.cl"`, and compilers
 * that honour it name positions "subgroup.cl:137:". Others (NVIDIA's)
 * ignore it and count lines across all the strings of the program, as
 * "<kernel>:489:"; such positions are mapped back here, so that every
 * driver's log points into the file a reader can open. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* The file named by a source's opening `#line 1 "NAME"`, into name[size];
 * 0 where there is none. */
static int line_directive_name(const char *source, char *name, size_t size)
{
    static const char prefix[] = "#line 1 \"";
    if (strncmp(source, prefix, sizeof prefix - 1) != 0)
        return 0;
    const char *begin = source + sizeof prefix - 1;
    const char *end = strchr(begin, '"');
    if (!end || (size_t)(end - begin) >= size || memchr(begin, '\n', (size_t)(end - begin)))
        return 0;
    memcpy(name, begin, (size_t)(end - begin));
    name[end - begin] = '\0';
    return 1;
}

/* Where line `line` (1-based) of the program's concatenated strings lies:
 * the file and line its source's #line makes it. 0 where it lies outside
 * every source or on a #line directive. */
static int map_line(const char *const *sources, size_t nsources, unsigned long line, char *file,
                    size_t size, unsigned long *file_line)
{
    unsigned long before = 0; /* lines of the sources before source i */
    for (size_t i = 0; i < nsources; i++) {
        unsigned long lines = (unsigned long)count_lines(sources[i]);
        if (line > before && line <= before + lines) {
            unsigned long local = line - before;
            if (local < 2 || !line_directive_name(sources[i], file, size))
                return 0;
            *file_line = local - 1;
            return 1;
        }
        before += lines;
    }
    return 0;
}

char *build_log_map_positions(const char *log, const char *const *sources, size_t nsources)
{
    size_t cap = strlen(log) + 1, len = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    const char *p = log;
    while (*p) {
        char file[128];
        unsigned long file_line = 0;
        const char *q = p;
        int mapped = 0;
        if (*q == '<') {
            q++;
            while (isalpha((unsigned char)*q))
                q++;
            if (q > p + 1 && q[0] == '>' && q[1] == ':' && isdigit((unsigned char)q[2])) {
                char *end;
                unsigned long line = strtoul(q + 2, &end, 10);
                if (*end == ':' &&
                    map_line(sources, nsources, line, file, sizeof file, &file_line)) {
                    q = end;
                    mapped = 1;
                }
            }
        }
        char piece[160];
        size_t n;
        const char *from;
        if (mapped) {
            n = (size_t)snprintf(piece, sizeof piece, "%s:%lu", file, file_line);
            from = piece;
            p = q;
        } else {
            n = 1;
            from = p++;
        }
        if (len + n + 1 > cap) {
            size_t grown = cap * 2 + n;
            char *bigger = realloc(out, grown);
            if (!bigger) {
                free(out);
                return NULL;
            }
            out = bigger;
            cap = grown;
        }
        memcpy(out + len, from, n);
        len += n;
    }
    out[len] = '\0';
    return out;
}

void append_build_log(clreduce_ctx *ctx, cl_program program, const char *const *sources,
                      size_t nsources)
{
    size_t size = 0;
    if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
            CL_SUCCESS ||
        size == 0)
        return;
    char *log = malloc(size + 1);
    if (!log)
        return;
    if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) ==
        CL_SUCCESS) {
        log[size] = '\0';
        char *mapped = build_log_map_positions(log, sources, nsources);
        append_error("\nbuild log:\n");
        append_error(mapped ? mapped : log);
        free(mapped);
    }
    free(log);
}
