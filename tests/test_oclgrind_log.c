/* The Oclgrind log: what Oclgrind reports is written to its log
 * ($OCLGRIND_LOG, set by the launcher's --log), read after every case so
 * that a report fails the case that caused it. The only reports accepted
 * are those a target declares as inherent to its design
 * (`target.accepted`), each matched exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_oclgrind.h"

static const char *g_log_path;
static long g_log_seen;       /* bytes of the log already judged */
static int g_checks_races;    /* Oclgrind runs its data-race detector */
size_t g_accepted;            /* reports accepted so far in this test */

void og_log_start(const char *path, int checks_races)
{
    g_log_path = path;
    g_log_seen = 0;
    g_checks_races = checks_races;
}

int og_log_truncate(void)
{
    return truncate(g_log_path, 0);
}

static long log_size(void)
{
    struct stat st;
    if (!g_log_path || stat(g_log_path, &st) != 0)
        return 0;
    return (long)st.st_size;
}

static void trim(char *s)
{
    char *p = s;
    while (*p == ' ' || *p == '\t')
        p++;
    memmove(s, p, strlen(p) + 1);
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
        s[--n] = '\0';
}

/* The file named by the last "At line N of FILE:" of a report. */
static char g_source_file[64];

/* Line `number` of g_source_file in the kernels' source directory
 * (CLREDUCE_CL_DIR) into out; 0 when it cannot be read. */
static int source_line_text(int number, char *out, size_t size)
{
    const char *dir = getenv("CLREDUCE_CL_DIR");
    char path[512];
    if (!dir || !g_source_file[0])
        return 0;
    snprintf(path, sizeof path, "%s/%s", dir, g_source_file);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[512];
    int n = 0, found = 0;
    while (!found && fgets(line, sizeof line, f))
        if (++n == number) {
            size_t len = strcspn(line, "\n");
            if (len >= size)
                len = size - 1;
            memcpy(out, line, len);
            out[len] = '\0';
            found = 1;
        }
    fclose(f);
    return found;
}

/* Whether one report (its lines, the first the heading) is an accepted
 * race of target t: heading, two different work-groups, the two lines. */
static int report_accepted(const target *t, char *report)
{
    static const char heading[] = "Read-write data race at global memory ";
    if (!t || !t->accepted || !g_checks_races ||
        strncmp(report, heading, sizeof heading - 1) != 0)
        return 0;
    char groups[2][48] = {"", ""}, lines[2][160] = {"", ""};
    int ngroups = 0, nlines = 0, next_is_source = 0;
    for (char *line = strtok(report, "\n"); line; line = strtok(NULL, "\n")) {
        if (next_is_source && nlines < 2) {
            /* Oclgrind prints the line's number and file as the #line
             * directives give them, but its text from the program as one
             * string: the text is read from the file itself. */
            if (!source_line_text(next_is_source, lines[nlines], sizeof lines[0]))
                snprintf(lines[nlines], sizeof lines[0], "%s", line);
            trim(lines[nlines++]);
        }
        next_is_source = 0;
        unsigned at = 0, column = 0;
        char file[64];
        if (sscanf(line, " At line %u (column %u) of %63[^:]:", &at, &column, file) == 3) {
            snprintf(g_source_file, sizeof g_source_file, "%s", file);
            next_is_source = (int)at;
        }
        const char *g = strstr(line, " entity:") ? strstr(line, "Group(") : NULL;
        if (g && ngroups < 2)
            snprintf(groups[ngroups++], sizeof groups[0], "%s", g);
    }
    if (ngroups != 2 || nlines != 2 || strcmp(groups[0], groups[1]) == 0)
        return 0;
    for (size_t i = 0; i < ARRAY_SIZE(t->accepted->lines) && t->accepted->lines[i][0]; i++) {
        const char *a = t->accepted->lines[i][0], *b = t->accepted->lines[i][1];
        if ((strcmp(lines[0], a) == 0 && strcmp(lines[1], b) == 0) ||
            (strcmp(lines[0], b) == 0 && strcmp(lines[1], a) == 0))
            return 1;
    }
    return 0;
}

/* Judges what Oclgrind wrote since the last call. Returns 1 when it wrote
 * nothing, or only reports that target t accepts; else prints the reports
 * that are not accepted (the first few kilobytes) and returns 0. */
int og_log_clean(const target *t, const char *what)
{
    long size = log_size();
    if (size <= g_log_seen)
        return 1;
    size_t len = (size_t)(size - g_log_seen);
    char *text = malloc(len + 1);
    size_t got = 0;
    FILE *f = fopen(g_log_path, "r");
    if (text && f && fseek(f, g_log_seen, SEEK_SET) == 0)
        got = fread(text, 1, len, f);
    if (f)
        fclose(f);
    g_log_seen = size;
    if (!text || got != len) {
        print_error("FAILED %s: Oclgrind wrote %zu bytes to its log, which could not be read\n",
                    what, len);
        free(text);
        return 0;
    }
    text[len] = '\0';

    /* Reports are separated by blank lines; their lines after the first
     * are indented with tabs. */
    char rejected[8192] = "";
    size_t nrejected = 0;
    char *p = text;
    while (*p) {
        while (*p == '\n')
            p++;
        if (!*p)
            break;
        char *end = p;
        while (*end && !(end[0] == '\n' && end[1] == '\n'))
            end++;
        char saved = *end;
        *end = '\0';
        char *copy = strdup(p);
        int ok = copy && report_accepted(t, copy);
        free(copy);
        if (ok) {
            g_accepted++;
        } else {
            nrejected++;
            size_t used = strlen(rejected);
            if (used + 2 < sizeof rejected)
                snprintf(rejected + used, sizeof rejected - used, "%s\n\n", p);
        }
        *end = saved;
        p = end;
    }
    free(text);
    if (nrejected == 0)
        return 1;
    print_error("FAILED %s: Oclgrind reported %zu problem(s):\n%s", what, nrejected, rejected);
    return 0;
}
