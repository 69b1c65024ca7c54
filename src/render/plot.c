/*
 * plot.c - the figures of a run (see plot.h): the registry of figures (one
 * file each, fig_*.c, sharing plot_util.c's helpers), and gnuplot run on
 * each script. Nothing here draws: gnuplot does.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bundle/paths.h"
#include "model/strategy.h"

/* The figures, in order: name (also the base name of its files), what it
 * shows, the function that writes its data and script. */
static const struct {
    const char *name, *shows;
    se_fig_draw_fn draw;
} FIGURES[SE_NFIGURES] = {
    {"fig1_latency", "every device-time sample per shape and strategy, panels on one log "
     "ratio scale, with medians", se_fig_latency},
    {"fig2_speedup", "speedup over stream launches per shape with 95% intervals: mechanisms on "
     "a linear axis, controls, cuDNN and the PyTorch peers in their own log panel",
     se_fig_speedup},
    {"fig3_bandwidth", "bandwidth as a fraction of the same-run copy with 95% intervals, L2 warm "
     "and flushed, linear axis", se_fig_bandwidth},
    {"fig4_timelines", "task timelines of fusion and megakernel per SM, coloured by phase",
     se_fig_timelines},
    {"fig5_controls", "launch and grid-barrier controls, every sample, with medians",
     se_fig_controls},
    {"fig6_distributions", "the spread of every case's samples around its median per shape: "
     "quartile box, 5th-95th percentile whisker, min and max", se_fig_distributions},
    {"fig7_answer", "the answer: each mechanism's time over stream's per shape, smallest to "
     "largest, with 95% intervals (the README's figure)", se_fig_answer},
    {"fig8_rowlength", "fraction of the same-run copy against row length (log axis), one line per "
     "strategy and peer, L2 warm and flushed, per group of shapes", se_fig_rowlength},
};

/* ---- driver ----------------------------------------------------------- */

static se_status make_dir(const char *dir, const char *rel, se_err *err)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return se_fail(err, SE_ERR_IO, "%s: cannot be created: %s", rel, strerror(errno));
    return SE_OK;
}

se_status se_plot_prepare(se_rundata *rd, const char *dir, se_figure figs[SE_NFIGURES],
                          se_err *err)
{
    memset(figs, 0, SE_NFIGURES * sizeof *figs);
    for (int i = 0; i < SE_NFIGURES; i++) {
        figs[i].name = FIGURES[i].name;
        figs[i].shows = FIGURES[i].shows;
        snprintf(figs[i].script, sizeof figs[i].script, "gnuplot/%s.gp", FIGURES[i].name);
    }
    plot_ctx c = {rd, dir};
    se_status st = make_dir(dir, "data", err);
    if (st == SE_OK)
        st = make_dir(dir, "gnuplot", err);
    for (int i = 0; i < SE_NFIGURES && st == SE_OK; i++)
        st = FIGURES[i].draw(&c, &figs[i], err);
    return st;
}

void se_plot_free(se_figure figs[SE_NFIGURES])
{
    for (int i = 0; i < SE_NFIGURES; i++) {
        se_strlist_free(&figs[i].run_files);
        se_strlist_free(&figs[i].data_files);
    }
}

/* Runs argv (PATH search) in dir with LC_ALL=C and stdin from /dev/null,
 * collecting its stdout and stderr; *code is its exit status (127: not
 * found, 128+N: killed by signal N). */
static se_status run_tool(const char *dir, char *const argv[], se_buf *output, int *code,
                          se_err *err)
{
    int fds[2];
    if (pipe(fds) != 0)
        return se_fail(err, SE_ERR_IO, "%s: cannot create a pipe: %s", argv[0], strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return se_fail(err, SE_ERR_IO, "%s: cannot fork: %s", argv[0], strerror(errno));
    }
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        if (in >= 0)
            dup2(in, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        if (dir && chdir(dir) != 0) {
            dprintf(2, "cannot enter %s: %s\n", dir, strerror(errno));
            _exit(126);
        }
        setenv("LC_ALL", "C", 1);
        execvp(argv[0], argv);
        int e = errno;
        dprintf(2, "%s: %s\n", argv[0], strerror(e));
        _exit(e == ENOENT ? 127 : 126);
    }
    close(fds[1]);
    char chunk[4096];
    for (;;) {
        ssize_t r = read(fds[0], chunk, sizeof chunk);
        if (r > 0)
            se_buf_addn(output, chunk, (size_t)r);
        else if (r == 0 || errno != EINTR)
            break;
    }
    close(fds[0]);
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR)
            return se_fail(err, SE_ERR_IO, "%s: waiting for it failed: %s", argv[0],
                           strerror(errno));
    *code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
    return SE_OK;
}

#define GNUPLOT_MISSING "gnuplot is not installed or not on PATH; install it (Debian/Ubuntu: " \
                        "apt-get install gnuplot-nox)"

se_status se_gnuplot_version(char *version, size_t size, se_err *err)
{
    char *argv[] = {"gnuplot", "--version", NULL};
    se_buf out = {0};
    int code = 0;
    se_status st = run_tool(NULL, argv, &out, &code, err);
    if (st == SE_OK && code == 127)
        st = se_fail(err, SE_ERR_IO, GNUPLOT_MISSING);
    else if (st == SE_OK && (code != 0 || strncmp(se_buf_str(&out), "gnuplot ", 8) != 0))
        st = se_fail(err, SE_ERR_IO, "`gnuplot --version` failed (exit %d): %.200s", code,
                     se_buf_str(&out));
    if (st == SE_OK)
        snprintf(version, size, "%.*s", (int)strcspn(se_buf_str(&out), "\r\n"), se_buf_str(&out));
    se_buf_free(&out);
    return st;
}

se_status se_plot_draw(const char *dir, const se_figure *f, FILE *out, se_err *err)
{
    char script[sizeof f->script];
    memcpy(script, f->script, sizeof script);
    char *argv[] = {"gnuplot", "-d", script, NULL};
    se_buf log = {0};
    int code = 0;
    se_status st = run_tool(dir, argv, &log, &code, err);
    const char *text = se_buf_str(&log);
    if (st == SE_OK && code == 127)
        st = se_fail(err, SE_ERR_IO, GNUPLOT_MISSING);
    else if (st == SE_OK && code != 0) {
        size_t len = strlen(text);
        const char *tail = len > 600 ? text + len - 600 : text;
        st = se_fail(err, SE_ERR_IO, "gnuplot failed on %s (exit %d): %s", f->script, code, tail);
    } else if (st == SE_OK && out && *text) {
        fprintf(out, "  gnuplot (%s) said:\n%s%s", f->script, text,
                text[strlen(text) - 1] == '\n' ? "" : "\n");
    }
    se_buf_free(&log);
    return st;
}
