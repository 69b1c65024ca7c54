/*
 * report_profile.c - the report's section on the Nsight Compute counters of
 * profile/kernels.csv (see report.h): the table with about four significant
 * digits (the file keeps every digit), and, before it, what the counters
 * that look wrong mean, counted from the file itself: DRAM writes of 0 and
 * L2 hit rates above 100%. The units of the raw export (profile/ncu_raw.csv)
 * are quoted, so a reader can see the values are the counters' own.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/report_sections.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/views.h"

/* Splits one CSV line (RFC 4180 quoting) into at most SE_REP_MAX_COLS cells. */
static int csv_cells(const char *line, char cells[][SE_REP_CELL])
{
    int n = 0;
    const char *p = line;
    while (n < SE_REP_MAX_COLS) {
        size_t used = 0;
        int quoted = *p == '"';
        if (quoted)
            p++;
        while (*p && (quoted || *p != ',')) {
            if (quoted && *p == '"') {
                if (p[1] == '"')
                    p++;
                else {
                    quoted = 0;
                    p++;
                    continue;
                }
            }
            if (used + 1 < SE_REP_CELL)
                cells[n][used++] = *p;
            p++;
        }
        cells[n++][used] = '\0';
        if (*p != ',')
            break;
        p++;
    }
    return n;
}

/* The index of a column by name, or -1. */
static int col_of(char cells[][SE_REP_CELL], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(cells[i], name) == 0)
            return i;
    return -1;
}

/* A cell that is a number with a fraction or an exponent, shortened to
 * about four significant digits; integers and text are left as they are. */
static void shorten(char *cell)
{
    char *end;
    double v = strtod(cell, &end);
    if (end == cell || *end || !strpbrk(cell, ".eE"))
        return;
    se_rep_sig(cell, SE_REP_CELL, v);
}

/* The next field of a raw CSV line (quoted, no embedded quotes in ncu's
 * names and units); *p moves past it. */
static int next_field(const char **p, char *out, size_t size)
{
    const char *s = *p;
    if (!*s)
        return 0;
    size_t n = 0;
    int quoted = *s == '"';
    if (quoted)
        s++;
    while (*s && (quoted ? *s != '"' : *s != ',')) {
        if (n + 1 < size)
            out[n++] = *s;
        s++;
    }
    if (quoted && *s == '"')
        s++;
    if (*s == ',')
        s++;
    out[n] = '\0';
    *p = s;
    return 1;
}

/* The unit ncu's raw export gives a metric (its second CSV row), or "". */
static void raw_unit(const se_rundata *rd, const char *metric, char *unit, size_t size)
{
    unit[0] = '\0';
    char path[4400];
    se_rundata_path(rd, SE_PROFILE_NCU_RAW_CSV, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    char *line = NULL, *head = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        if (line[0] != '"')
            continue; /* ==PROF== messages */
        if (!head) {
            head = strdup(line);
            continue;
        }
        const char *h = head, *u = line;
        char name[256], un[64];
        while (head && next_field(&h, name, sizeof name) && next_field(&u, un, sizeof un)) {
            name[strcspn(name, "\r\n")] = '\0';
            un[strcspn(un, "\r\n")] = '\0';
            if (strcmp(name, metric) == 0) {
                snprintf(unit, size, "%s", un);
                break;
            }
        }
        break;
    }
    free(head);
    free(line);
    fclose(f);
}

/* What the file holds that looks wrong, counted. */
typedef struct counter_stats {
    int rows, zero_writes, hit_over;
    double hit_over_max, hit_over_max_dur, hit_over_max_read, write_max;
    int dur, read, write, hit;  /* columns, -1 if absent */
} counter_stats;

static void explain(se_doc *d, const se_rundata *rd, const counter_stats *c)
{
    char unit_w[64], unit_h[64];
    raw_unit(rd, "dram__bytes_write.sum", unit_w, sizeof unit_w);
    raw_unit(rd, "lts__t_sector_hit_rate.pct", unit_h, sizeof unit_h);
    double l2 = (double)se_rundata_views(rd)->env.l2_bytes;
    if (c->write >= 0 && c->zero_writes > 0) {
        se_doc_begin(d, SE_DOC_NOTE);
        se_doc_strong(d, "DRAM bytes written of 0.");
        se_doc_text(d, " %d of %d kernels show 0 (dram__bytes_write.sum; the raw export's unit "
                       "is '%s'). The counter counts bytes written to DRAM while the kernel runs. "
                       "The L2 (%.0f MiB on this GPU) is a write-back cache: what a kernel writes "
                       "stays there and reaches DRAM when it is evicted, which for a kernel whose "
                       "writes fit in the L2 happens after the kernel ended (Nsight Compute flushes "
                       "the caches between its replay passes), outside the counted window. Kernels "
                       "that write more than the L2 keeps do show DRAM writes (the largest here: "
                       "%.4g MB). These are the counter's values, not a parsing error.",
                    c->zero_writes, c->rows, unit_w[0] ? unit_w : "not found", l2 / 1048576.0,
                    c->write_max / 1e6);
        se_doc_end(d);
    }
    if (c->hit >= 0 && c->hit_over > 0) {
        se_doc_begin(d, SE_DOC_NOTE);
        se_doc_strong(d, "L2 hit rates above 100%.");
        se_doc_text(d, " %d of %d kernels show an L2 hit rate above 100%% "
                       "(lts__t_sector_hit_rate.pct, unit '%s'; up to %.4g%%, marked * in the "
                       "table). A hit rate is hits over lookups, and Nsight Compute may collect the "
                       "two in different replay passes; the L2 also serves other clients than the "
                       "kernel. On a kernel too small to reach a steady state the two counts do "
                       "not match, and NVIDIA's answer on this (Nsight Compute forum, \"Weird "
                       "number for L2 cache hit rate\", forums.developer.nvidia.com/t/120341) is that a value outside 0-100%% was not "
                       "collected accurately. Every such kernel here is small: at most %.4g us "
                       "and %.4g kB read from DRAM. Read these rates as unmeasured, not as hits.",
                    c->hit_over, c->rows, unit_h[0] ? unit_h : "not found", c->hit_over_max,
                    c->hit_over_max_dur / 1e3, c->hit_over_max_read / 1e3);
        se_doc_end(d);
    }
}

se_status se_rep_profile(se_doc *d, se_rundata *rd, se_err *err)
{
    se_doc_heading(d, 2, "Profiler counters");
    static const char rel[] = SE_PROFILE_KERNELS_CSV;
    if (!se_rundata_listed(rd, rel)) {
        se_doc_para(d, "This run carries no profiler export (no %s in its manifest); softmax-evidence "
                "profile RUN_DIR adds one on a GPU with Nsight Compute.", rel);
        return SE_OK;
    }
    char hex[65], path[4400];
    se_status st = se_rundata_hash(rd, rel, hex, err);
    if (st != SE_OK)
        return st;
    se_doc_para(d, "Nsight Compute counters from %s (SHA-256 %s; docs/PROFILING.md). Nsight Compute "
            "replays each kernel in isolation, restoring memory between passes, and serializes "
            "kernels: its durations are not the run's timings, which are in the tables above. Use "
            "the counters for bytes and utilization. The table shows about four significant "
            "digits; the file has every digit.", rel, hex);
    se_rundata_path(rd, rel, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return se_fail(err, SE_ERR_IO, "%s: cannot be read: %s", rel, strerror(errno));
    char line[8192];
    char (*cells)[SE_REP_CELL] = malloc(SE_REP_MAX_COLS * sizeof *cells);
    if (!cells) {
        fclose(f);
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", rel);
    }
    /* Two passes: count what looks wrong, then the table. */
    counter_stats c = {0};
    c.dur = c.read = c.write = c.hit = -1;
    int cols = 0, shape_col = -1;
    for (int pass = 0; pass < 2; pass++) {
        rewind(f);
        int lineno = 0;
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\r\n")] = '\0';
            if (!*line)
                continue;
            int n = csv_cells(line, cells);
            if (lineno++ == 0) {
                cols = n;
                c.dur = col_of(cells, n, "duration_ns");
                c.read = col_of(cells, n, "dram_read_bytes");
                c.write = col_of(cells, n, "dram_write_bytes");
                c.hit = col_of(cells, n, "l2_hit_rate_pct");
                shape_col = col_of(cells, n, "shape");
                if (pass == 1) {
                    explain(d, rd, &c);
                    se_rep_header(d, n, cells);
                }
                continue;
            }
            for (int i = n; i < cols; i++)
                cells[i][0] = '\0';
            double hit = c.hit >= 0 ? strtod(cells[c.hit], NULL) : 0;
            if (pass == 0) {
                c.rows++;
                double w = c.write >= 0 ? strtod(cells[c.write], NULL) : 0;
                c.zero_writes += c.write >= 0 && cells[c.write][0] && w == 0;
                c.write_max = w > c.write_max ? w : c.write_max;
                if (hit > 100) {
                    double du = c.dur >= 0 ? strtod(cells[c.dur], NULL) : 0;
                    double r = c.read >= 0 ? strtod(cells[c.read], NULL) : 0;
                    c.hit_over++;
                    c.hit_over_max = hit > c.hit_over_max ? hit : c.hit_over_max;
                    c.hit_over_max_dur = du > c.hit_over_max_dur ? du : c.hit_over_max_dur;
                    c.hit_over_max_read = r > c.hit_over_max_read ? r : c.hit_over_max_read;
                }
                continue;
            }
            for (int i = 0; i < cols; i++)
                shorten(cells[i]);
            /* One shape name everywhere: profile.c writes the protocol's
             * spelling ("5xT+1"); the tables name the run's own RxC. */
            for (size_t k = 0; shape_col >= 0 && k < rd->p.n_shapes; k++)
                if (strcmp(cells[shape_col], rd->p.shapes[k].spec) == 0) {
                    se_shape_id(rd->p.shapes[k].rows, rd->p.shapes[k].cols, cells[shape_col],
                                SE_REP_CELL);
                    break;
                }
            if (hit > 100) {
                size_t len = strlen(cells[c.hit]);
                if (len + 2 < SE_REP_CELL)
                    memcpy(cells[c.hit] + len, "*", 2);
            }
            se_rep_row(d, cols, cells);
        }
        if (pass == 1 && lineno)
            se_doc_table_end(d);
    }
    free(cells);
    fclose(f);
    return SE_OK;
}
