/*
 * peers_run.c - measuring the PyTorch peers in a run (see peers_run.h).
 *
 * The scratch folder: in/ holds peers-inputs.json and every shape's x and
 * xp; the script creates out/ with peers-results.json and the outputs;
 * script.log holds what the script wrote on stderr (its reason, when it
 * stops). The script's stdout, its progress, goes to our stderr.
 */
#define _POSIX_C_SOURCE 200809L
#include "run/peers_run.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bundle/fsutil.h"
#include "model/json.h"
#include "bundle/manifest.h"
#include "bundle/samples.h"
#include "model/operation.h"
#include "model/tolerance.h"
#include "bundle/peers.h"

extern char **environ;

#define RESULTS_FORMAT "softmax-evidence-peers-results"
#define INPUTS_FORMAT "softmax-evidence-peers-inputs"
#define EXIT_NO_TORCH 3

/* PEER_SKIPPED: the script could not run the peer here (its package is
 * missing, or does not support the GPU), saying why in `error`. */
enum { PEER_ERROR = 0, PEER_OK, PEER_FAILED, PEER_SKIPPED };

typedef struct peer_result {
    int state;
    char error[1024];
    se_compare cmp;
    unsigned char out_sha[32];
    se_sample_set samples;
    json_t *timing;  /* the script's warm-up and sleep figures */
} peer_result;

typedef struct shape_rec {
    unsigned char x_sha[32], xp_sha[32];
    int has_xp; /* xp written (the operation has a pre-scaled input) */
    peer_result peer[SE_NPEERS];
} shape_rec;

struct se_peers_run {
    const se_protocol *p;
    se_peers_opts o;
    char scratch[4096];   /* "" when there is none */
    char reason[1024];    /* set: the peers are skipped */
    int exit_status;      /* of the script; -1 until it ran */
    unsigned char script_sha[32];
    json_t *environment;  /* torch, triton, python, device, sleep calibration */
    shape_rec *shapes;
    size_t n_written;     /* shapes whose inputs are written */
    se_peer_set set;      /* the protocol's operation's peers: peer[k] is table entry first + k */
    const char *operation; /* its name, peers-inputs.json's and peers.json's 'operation' */
};

static void skip(se_peers_run *pr, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Records why the peers are skipped (the first reason stands) and removes
 * the scratch folder. */
static void skip(se_peers_run *pr, const char *fmt, ...)
{
    if (!pr->reason[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(pr->reason, sizeof pr->reason, fmt, ap);
        va_end(ap);
        if (!pr->o.quiet)
            fprintf(stderr, "[peers] skipped: %s\n", pr->reason);
    }
    if (pr->scratch[0])
        se_remove_tree(pr->scratch);
    pr->scratch[0] = '\0';
}

int se_peers_active(const se_peers_run *pr)
{
    return pr && !pr->reason[0];
}

se_status se_peers_begin(se_peers_run **out, const se_protocol *p, const se_peers_opts *o,
                         se_err *err)
{
    se_peers_run *pr = calloc(1, sizeof *pr);
    if (pr)
        pr->shapes = calloc(p->n_shapes, sizeof *pr->shapes);
    if (!pr || !pr->shapes) {
        free(pr);
        return se_fail(err, SE_ERR_NOMEM, "peers: out of memory");
    }
    pr->p = p;
    pr->o = *o;
    pr->exit_status = -1;
    pr->operation = se_protocol_operation(p)->name;
    pr->set = se_peer_set_of(pr->operation);
    if (pr->set.count < 1 || pr->set.count > SE_NPEERS) {
        free(pr->shapes);
        free(pr);
        return se_fail(err, SE_ERR_USAGE, "peers: workload '%s' has no peers in bundle/peers.c",
                       se_protocol_operation(p)->name);
    }
    *out = pr;
    if (o->disabled) {
        snprintf(pr->reason, sizeof pr->reason, "%s", o->disabled);
        return SE_OK;
    }
    if (access(o->script, R_OK) != 0) {
        skip(pr, "the peers script %s cannot be read: %s", o->script, strerror(errno));
        return SE_OK;
    }
    const char *tmp = getenv("TMPDIR");
    tmp = tmp && *tmp ? tmp : "/tmp";
    snprintf(pr->scratch, sizeof pr->scratch, "%s/se-peers-XXXXXX", tmp);
    char in[4200];
    if (!mkdtemp(pr->scratch)) {
        pr->scratch[0] = '\0';
        skip(pr, "no scratch folder for the peers' inputs can be created in %s: %s", tmp,
             strerror(errno));
        return SE_OK;
    }
    snprintf(in, sizeof in, "%s/in", pr->scratch);
    if (mkdir(in, 0700) != 0)
        skip(pr, "cannot create %s: %s", in, strerror(errno));
    return SE_OK;
}

static se_status write_file(const char *path, const void *data, size_t n, se_err *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return se_fail(err, SE_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    int bad = n && fwrite(data, 1, n, f) != n;
    bad |= fclose(f) != 0;
    return bad ? se_fail(err, SE_ERR_IO, "writing %s failed: %s", path, strerror(errno)) : SE_OK;
}

/* Reads exactly n floats from path; a file of another size is refused. */
static se_status read_floats(const char *path, float *v, size_t n, se_err *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return se_fail(err, SE_ERR_IO, "%s cannot be read: %s", path, strerror(errno));
    if ((size_t)sb.st_size != n * sizeof *v)
        return se_fail(err, SE_ERR_VALIDATION, "%s has %lld bytes, expected %zu", path,
                       (long long)sb.st_size, n * sizeof *v);
    FILE *f = fopen(path, "rb");
    int ok = f && fread(v, sizeof *v, n, f) == n;
    if (f)
        fclose(f);
    return ok ? SE_OK : se_fail(err, SE_ERR_IO, "%s cannot be read", path);
}

static void shape_id(const se_shape *s, char *buf, size_t size)
{
    snprintf(buf, size, "%" PRId64 "x%" PRId64, s->rows, s->cols);
}

void se_peers_add_shape(se_peers_run *pr, size_t shape_index, const float *x, const float *xp,
                        const unsigned char x_sha256[32])
{
    if (!se_peers_active(pr))
        return;
    const se_shape *s = &pr->p->shapes[shape_index];
    shape_rec *r = &pr->shapes[shape_index];
    size_t bytes = (size_t)(s->rows * s->cols) * sizeof(float);
    char id[64], path[4400];
    se_err err = {{0}};
    shape_id(s, id, sizeof id);
    memcpy(r->x_sha, x_sha256, 32);
    snprintf(path, sizeof path, "%s/in/%s.x.f32", pr->scratch, id);
    se_status st = write_file(path, x, bytes, &err);
    r->has_xp = xp != NULL;
    if (st == SE_OK && xp) {
        snprintf(path, sizeof path, "%s/in/%s.xp.f32", pr->scratch, id);
        st = write_file(path, xp, bytes, &err);
    }
    if (st == SE_OK && xp)
        st = se_sha256_buffer(xp, bytes, r->xp_sha, &err);
    if (st != SE_OK)
        skip(pr, "the inputs of %s cannot be written for the script: %s", id, err.msg);
    else
        pr->n_written++;
}

static se_status write_inputs(se_peers_run *pr, int64_t first_seq, se_err *err)
{
    const se_protocol *p = pr->p;
    json_t *shapes = json_array(), *names = json_array();
    for (int k = 0; k < pr->set.count; k++)
        json_array_append_new(names, json_string(se_peer_get(pr->set.first + k)->name));
    for (size_t i = 0; i < p->n_shapes; i++) {
        char id[64], hx[65], hxp[65];
        shape_id(&p->shapes[i], id, sizeof id);
        se_hex32(pr->shapes[i].x_sha, hx);
        se_hex32(pr->shapes[i].xp_sha, hxp);
        json_t *s = json_pack("{s:s, s:I, s:I, s:f, s:s+, s:s}", "id", id, "rows",
                              (json_int_t)p->shapes[i].rows, "cols", (json_int_t)p->shapes[i].cols,
                              "eps", p->eps, "x", id, ".x.f32", "x_sha256", hx);
        /* xp only where the operation has a pre-scaled input (the softmax) */
        if (s && pr->shapes[i].has_xp) {
            json_object_set_new(s, "xp", json_pack("s+", id, ".xp.f32"));
            json_object_set_new(s, "xp_sha256", json_string(hxp));
        }
        json_array_append_new(shapes, s);
    }
    json_t *j = json_pack("{s:s, s:i, s:i, s:i, s:I, s:o, s:o}", "format", INPUTS_FORMAT,
                          "version", 1, "samples", p->device.samples, "warmup", p->device.warmup,
                          "first_seq", (json_int_t)first_seq, "peers", names, "shapes", shapes);
    /* the workload whose peers the script runs (bench/peers.py's
     * OPERATION_PEERS; absent there means the softmax) */
    if (j)
        json_object_set_new(j, "operation", json_string(pr->operation));
    char path[4400];
    snprintf(path, sizeof path, "%s/in/peers-inputs.json", pr->scratch);
    int bad = !j || json_dump_file(j, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER |
                                                JSON_REAL_PRECISION(17)) != 0;
    json_decref(j);
    return bad ? se_fail(err, SE_ERR_IO, "cannot write %s", path) : SE_OK;
}

/* The last non-empty line of a file, without its newline. */
static void last_line(const char *path, char *buf, size_t size)
{
    char line[1024];
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0])
            snprintf(buf, size, "%s", line);
    }
    fclose(f);
}

/* Copies the script's stderr to ours. */
static void show_log(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f))
        fputs(line, stderr);
    fclose(f);
}

/* Ends what is left of the script's process group once the script has
 * exited: its workers get SIGTERM, 200 ms, then SIGKILL. */
static void end_group(pid_t pgid)
{
    if (kill(-pgid, SIGTERM) != 0)
        return; /* none left */
    for (int i = 0; i < 20 && kill(-pgid, 0) == 0; i++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    kill(-pgid, SIGKILL);
}

/* Runs python SCRIPT IN OUT --device N [--quiet]; *status is its exit
 * status (128 + signal when a signal ended it), -1 if it could not start. */
static se_status spawn_script(se_peers_run *pr, const char *in, const char *out,
                              const char *log, int *status, se_err *err)
{
    char dev[16];
    snprintf(dev, sizeof dev, "%d", pr->o.device);
    char *argv[8];
    int k = 0;
    argv[k++] = (char *)pr->o.python;
    argv[k++] = (char *)pr->o.script;
    argv[k++] = (char *)in;
    argv[k++] = (char *)out;
    argv[k++] = "--device";
    argv[k++] = dev;
    if (pr->o.quiet)
        argv[k++] = "--quiet";
    argv[k] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    /* Its own process group: torch.compile's and the JIT peers' compile
     * workers are the script's children, and outlive it when it is ended
     * (a run stopped by `timeout` on the H200 left them on the GPU, and
     * the runs after it timed out, docs/PERFORMANCE.md, version 20). */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    pid_t pid;
    fflush(stderr);
    int rc = posix_spawnp(&pid, pr->o.python, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    *status = -1;
    if (rc != 0) {
        skip(pr, "python '%s' cannot be run: %s", pr->o.python, strerror(rc));
        return SE_OK;
    }
    int wst = 0, stopped = 0;
    for (;;) {
        pid_t w = waitpid(pid, &wst, 0);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            return se_fail(err, SE_ERR_IO, "waiting for the peers script failed: %s",
                           strerror(errno));
        if (se_rundir_interrupted() && !stopped) {
            kill(-pid, SIGTERM); /* the script and its workers */
            stopped = 1;
        }
    }
    end_group(pid);
    if (se_rundir_interrupted())
        return se_fail(err, SE_ERR_IO, "interrupted while the peers script ran");
    *status = WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + (WIFSIGNALED(wst) ? WTERMSIG(wst) : 0);
    return SE_OK;
}

static json_t *peer_result_of(const json_t *results, const char *id, const char *name)
{
    size_t i, j;
    json_t *s, *r;
    json_array_foreach(json_object_get(results, "shapes"), i, s) {
        const char *sid = json_string_value(json_object_get(s, "id"));
        if (!sid || strcmp(sid, id) != 0)
            continue;
        json_array_foreach(json_object_get(s, "peers"), j, r) {
            const char *pn = json_string_value(json_object_get(r, "peer"));
            if (pn && strcmp(pn, name) == 0)
                return r;
        }
    }
    return NULL;
}

/* The samples of one peer: [seq, round, position, ns], rounds in order. */
static int take_samples(const se_protocol *p, const json_t *arr, int n_peers, se_sample_set *set,
                        char *why, size_t why_size)
{
    if (json_array_size(arr) != (size_t)p->device.samples) {
        snprintf(why, why_size, "peers-results.json gives %zu samples, the protocol asks for %d",
                 json_array_size(arr), p->device.samples);
        return 0;
    }
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        const json_t *seq = json_array_get(v, 0), *round = json_array_get(v, 1),
                     *pos = json_array_get(v, 2), *ns = json_array_get(v, 3);
        double t = json_number_value(ns);
        if (json_array_size(v) != 4 || !json_is_integer(seq) || !json_is_integer(round) ||
            !json_is_integer(pos) || !json_is_number(ns) || json_integer_value(seq) < 0 ||
            json_integer_value(round) != (json_int_t)i || json_integer_value(pos) < 0 ||
            json_integer_value(pos) >= n_peers || !isfinite(t) || t <= 0.0) {
            snprintf(why, why_size, "peers-results.json: sample %zu is not [seq, round %zu, "
                     "position, ns > 0]", i, i);
            return 0;
        }
        se_sample s = {json_integer_value(seq), (int)i, (int)json_integer_value(pos), t, 0.0, 0};
        if (se_sample_set_push(set, &s, NULL) != SE_OK) {
            snprintf(why, why_size, "out of memory");
            return 0;
        }
    }
    return 1;
}

/* Takes one peer's result from the script: samples and timing figures, or
 * its error. Its output is validated later. */
static void take_peer(se_peers_run *pr, size_t si, int k, const json_t *results)
{
    char id[64], want[160];
    shape_id(&pr->p->shapes[si], id, sizeof id);
    const char *name = se_peer_get(pr->set.first + k)->name;
    peer_result *pe = &pr->shapes[si].peer[k];
    const json_t *r = peer_result_of(results, id, name);
    const char *status = json_string_value(json_object_get(r, "status"));
    const char *output = json_string_value(json_object_get(r, "output"));
    pe->state = PEER_ERROR;
    snprintf(want, sizeof want, "%s.%s.y.f32", id, name);
    if (!r) {
        snprintf(pe->error, sizeof pe->error, "missing from peers-results.json");
    } else if (status && (strcmp(status, "error") == 0 || strcmp(status, "skipped") == 0)) {
        const char *e = json_string_value(json_object_get(r, "error"));
        snprintf(pe->error, sizeof pe->error, "%s", e && *e ? e : "the script gave no reason");
        if (status[0] == 's')
            pe->state = PEER_SKIPPED;
    } else if (!status || strcmp(status, "ok") != 0) {
        snprintf(pe->error, sizeof pe->error, "peers-results.json: status '%s'",
                 status ? status : "(none)");
    } else if (!output || strcmp(output, want) != 0) {
        snprintf(pe->error, sizeof pe->error, "peers-results.json: output '%s', expected %s",
                 output ? output : "(none)", want);
    } else if (take_samples(pr->p, json_object_get(r, "samples"), pr->set.count, &pe->samples,
                            pe->error, sizeof pe->error)) {
        static const char *const keys[] = {"warmup", "host_enqueue_max_ns", "sleep_ns",
                                           "sleep_cycles", "exposed_samples"};
        pe->timing = json_object();
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
            json_t *v = json_object_get(r, keys[i]);
            if (json_is_number(v))
                json_object_set(pe->timing, keys[i], v);
        }
        pe->state = PEER_OK;
    }
    if (pe->state == PEER_ERROR || pe->state == PEER_SKIPPED)
        se_sample_set_free(&pe->samples);
}

static se_status write_samples(const se_rundir *rd, const se_case_id *c, const se_sample_set *set,
                               se_err *err)
{
    char rel[160];
    se_samples_path(c, rel, sizeof rel);
    return se_rundir_write_samples(rd, rel, set, 1, err);
}

/* Validates the outputs of the peers that ran on one shape against the
 * float64 reference, then records their samples. */
static se_status validate_shape(se_peers_run *pr, size_t si, const se_rundir *rd,
                                se_peer_output_fn save, void *ctx, se_err *err)
{
    const se_protocol *p = pr->p;
    const se_shape *s = &p->shapes[si];
    shape_rec *r = &pr->shapes[si];
    int ran = 0;
    for (int k = 0; k < pr->set.count; k++)
        ran += r->peer[k].state == PEER_OK;
    if (!ran)
        return SE_OK;
    size_t n = (size_t)(s->rows * s->cols);
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    double *ref = malloc(n * sizeof *ref);
    char id[64], path[4400];
    unsigned char d[32];
    shape_id(s, id, sizeof id);
    se_status st = x && y && ref ? SE_OK : se_fail(err, SE_ERR_NOMEM, "peers: out of memory");
    se_err why = {{0}};
    snprintf(path, sizeof path, "%s/in/%s.x.f32", pr->scratch, id);
    /* The input is read back and hashed: the reference is of the run's x. */
    int have_x = st == SE_OK && read_floats(path, x, n, &why) == SE_OK &&
                 se_sha256_buffer(x, n * sizeof *x, d, &why) == SE_OK &&
                 memcmp(d, r->x_sha, 32) == 0;
    if (have_x)
        se_protocol_operation(p)->reference(x, s->rows, s->cols, p->eps, ref);
    for (int k = 0; k < pr->set.count && st == SE_OK; k++) {
        peer_result *pe = &r->peer[k];
        const char *name = se_peer_get(pr->set.first + k)->name;
        if (pe->state != PEER_OK)
            continue;
        snprintf(path, sizeof path, "%s/out/%s.%s.y.f32", pr->scratch, id, name);
        se_status rst = have_x ? read_floats(path, y, n, &why) : SE_ERR_IO;
        if (rst == SE_OK)
            rst = se_sha256_buffer(y, n * sizeof *y, pe->out_sha, &why);
        if (rst != SE_OK) {
            pe->state = PEER_ERROR;
            snprintf(pe->error, sizeof pe->error, "its output cannot be validated: %.900s",
                     have_x ? why.msg : "the input read back differs from the run's");
            se_sample_set_free(&pe->samples);
            continue;
        }
        se_compare_f32_f64(y, ref, (int64_t)n, p->tol, &pe->cmp);
        pe->state = se_compare_passed(&pe->cmp) ? PEER_OK : PEER_FAILED;
        se_case_id c;
        se_peer_case(s, pr->set.first + k, &c);
        st = write_samples(rd, &c, &pe->samples, err);
        if (st == SE_OK && save)
            st = save(ctx, s, name, y, err);
    }
    free(x);
    free(y);
    free(ref);
    return st;
}

/* Reads peers-results.json: the environment, then every peer's result. */
static void take_results(se_peers_run *pr, const char *out)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/peers-results.json", out);
    json_t *j = NULL;
    se_err je;
    if (se_json_load(path, "peers-results.json", RESULTS_FORMAT, 1, NULL, &j, &je) != SE_OK) {
        skip(pr, "the script's peers-results.json cannot be read: %s", je.msg);
        return;
    }
    if (!json_is_array(json_object_get(j, "shapes"))) {
        skip(pr, "the script's peers-results.json is not %s version 1 with shapes", RESULTS_FORMAT);
        json_decref(j);
        return;
    }
    static const char *const keys[] = {"torch_version", "torch_cuda_version", "triton_version",
                                       "python_version", "device_name", "device_capability",
                                       "sleep_calibration", "timing", "peer_packages"};
    pr->environment = json_object();
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(j, keys[i]);
        json_object_set(pr->environment, keys[i], v ? v : json_null());
    }
    for (size_t i = 0; i < pr->p->n_shapes; i++)
        for (int k = 0; k < pr->set.count; k++)
            take_peer(pr, i, k, j);
    json_decref(j);
}

se_status se_peers_measure(se_peers_run *pr, const se_rundir *rd, int64_t first_seq,
                           se_peer_output_fn save, void *ctx, se_err *err)
{
    if (!se_peers_active(pr))
        return SE_OK;
    if (pr->n_written != pr->p->n_shapes) {
        skip(pr, "the inputs of %zu of %zu shapes were written", pr->n_written, pr->p->n_shapes);
        return SE_OK;
    }
    char in[4200], out[4200], log[4200];
    snprintf(in, sizeof in, "%s/in", pr->scratch);
    snprintf(out, sizeof out, "%s/out", pr->scratch);
    snprintf(log, sizeof log, "%s/script.log", pr->scratch);
    se_err why = {{0}};
    if (write_inputs(pr, first_seq, &why) != SE_OK) {
        skip(pr, "%s", why.msg);
        return SE_OK;
    }
    if (!pr->o.quiet)
        fprintf(stderr, "[peers] %s %s: torch eager, torch.compile and torch.softmax on %zu "
                "shapes (torch.compile compiles each shape: minutes)\n", pr->o.python,
                pr->o.script, pr->p->n_shapes);
    int status = -1;
    se_status st = spawn_script(pr, in, out, log, &status, err);
    if (st != SE_OK || status < 0)
        return st;
    pr->exit_status = status;
    char line[1024];
    last_line(log, line, sizeof line);
    /* Exit 3's reason is printed by skip(); a failure shows everything. */
    if (status == 0 ? !pr->o.quiet : status != EXIT_NO_TORCH)
        show_log(log);
    if (status == EXIT_NO_TORCH) {
        skip(pr, "%s", line[0] ? line : "the script found no torch or no CUDA for it (exit 3)");
        return SE_OK;
    }
    if (status != 0) {
        skip(pr, "the peers script failed (exit status %d): %s", status,
             line[0] ? line : "it wrote nothing on stderr");
        return SE_OK;
    }
    take_results(pr, out);
    if (!se_peers_active(pr))
        return SE_OK;
    /* The script as it ran, hashed, in the run. */
    char copy[4400];
    se_rundir_path(rd, SE_PEERS_SCRIPT_COPY, copy, sizeof copy);
    st = se_copy_file(pr->o.script, copy, err);
    if (st == SE_OK)
        st = se_sha256_file(copy, pr->script_sha, err);
    for (size_t i = 0; i < pr->p->n_shapes && st == SE_OK; i++)
        st = validate_shape(pr, i, rd, save, ctx, err);
    return st;
}

static se_status entry_json(const se_peers_run *pr, size_t si, int k, const json_t *summary,
                            json_t **out, se_err *err)
{
    const se_shape *s = &pr->p->shapes[si];
    const shape_rec *r = &pr->shapes[si];
    const peer_result *pe = &r->peer[k];
    const se_peer_info *info = se_peer_get(pr->set.first + k);
    se_case_id c;
    se_peer_case(s, pr->set.first + k, &c);
    char hx[65], hop[65], hout[65], rel[160];
    se_hex32(r->x_sha, hx);
    se_hex32(strcmp(info->input, "xp") == 0 ? r->xp_sha : r->x_sha, hop);
    json_t *o = json_object();
    json_object_set_new(o, "case", json_string(c.id));
    json_object_set_new(o, "shape", json_string(s->spec));
    json_object_set_new(o, "rows", json_integer(s->rows));
    json_object_set_new(o, "cols", json_integer(s->cols));
    json_object_set_new(o, "peer", json_string(info->name));
    json_object_set_new(o, "computes", json_string(info->computes));
    json_object_set_new(o, "input", json_string(info->input));
    json_object_set_new(o, "input_sha256", json_string(hx));
    json_object_set_new(o, "operand_sha256", json_string(hop));
    json_object_set_new(o, "status", json_string(pe->state == PEER_OK       ? "ok"
                                                 : pe->state == PEER_FAILED ? "failed"
                                                 : pe->state == PEER_SKIPPED ? "skipped"
                                                                             : "error"));
    *out = o;
    if (pe->state == PEER_ERROR || pe->state == PEER_SKIPPED) {
        json_object_set_new(o, pe->state == PEER_SKIPPED ? "reason" : "error",
                            json_string(pe->error));
        return SE_OK;
    }
    se_compare_json_set(o, &pe->cmp);
    json_object_set_new(o, "pass", json_boolean(pe->state == PEER_OK));
    se_hex32(pe->out_sha, hout);
    json_object_set_new(o, "output_sha256", json_string(hout));
    se_samples_path(&c, rel, sizeof rel);
    json_object_set_new(o, "samples_file", json_string(rel));
    json_object_set(o, "timing", pe->timing ? pe->timing : json_null());
    json_t *sum = NULL;
    se_status st = se_peer_summary(pr->p, summary, &c, &pe->samples, &sum, err);
    json_object_set_new(o, "summary", sum);
    return st;
}

se_status se_peers_json(const se_peers_run *pr, const json_t *summary, json_t **out, se_err *err)
{
    char hex[65];
    se_hex32(pr->script_sha, hex);
    int ok = se_peers_active(pr);
    json_t *j = json_object(), *list = json_array();
    json_object_set_new(j, "format", json_string(SE_PEERS_FORMAT));
    /* 2 for the softmax (its peers.json as before), 3 naming the
     * operation for another (bundle/peers.h) */
    int version = se_peers_version_of(pr->operation);
    json_object_set_new(j, "version", json_integer(version));
    if (version >= 3)
        json_object_set_new(j, "operation", json_string(pr->operation));
    json_object_set_new(j, "status", json_string(ok ? "ok" : "skipped"));
    json_object_set_new(j, "reason", ok ? json_null() : json_string(pr->reason));
    json_object_set_new(j, "script", json_string(pr->o.script ? pr->o.script : ""));
    json_object_set_new(j, "script_copy", ok ? json_string(SE_PEERS_SCRIPT_COPY) : json_null());
    json_object_set_new(j, "script_sha256", ok ? json_string(hex) : json_null());
    json_object_set_new(j, "python", json_string(pr->o.python ? pr->o.python : ""));
    json_object_set_new(j, "script_exit_status",
                        pr->exit_status >= 0 ? json_integer(pr->exit_status) : json_null());
    json_object_set(j, "environment", pr->environment ? pr->environment : json_null());
    json_object_set_new(
        j, "timing",
        json_string("device scope, L2 warm: per sample torch.cuda._sleep holds the stream while "
                    "the host enqueues the start event, one call and the end event; the events' "
                    "elapsed time is the sample. The peers of a shape are interleaved, round r in "
                    "the order rotated by r. SM clock not read (sm_mhz 0, never flagged)"));
    json_object_set_new(j, "tolerance",
                        json_pack("{s:f, s:f, s:s}", "atol", pr->p->tol.atol, "rtol",
                                  pr->p->tol.rtol, "rule",
                                  "pass element: finite and |out - ref| <= atol + rtol * |ref|, "
                                  "ref the float64 reference of x"));
    json_object_set_new(j, "peers", list);
    se_status st = SE_OK;
    for (size_t i = 0; ok && i < pr->p->n_shapes && st == SE_OK; i++)
        for (int k = 0; k < pr->set.count && st == SE_OK; k++) {
            json_t *e = NULL;
            st = entry_json(pr, i, k, summary, &e, err);
            json_array_append_new(list, e);
        }
    if (st != SE_OK) {
        json_decref(j);
        return st;
    }
    *out = j;
    return SE_OK;
}

void se_peers_end(se_peers_run *pr)
{
    if (!pr)
        return;
    if (pr->scratch[0])
        se_remove_tree(pr->scratch);
    for (size_t i = 0; i < pr->p->n_shapes; i++)
        for (int k = 0; k < pr->set.count; k++) {
            se_sample_set_free(&pr->shapes[i].peer[k].samples);
            json_decref(pr->shapes[i].peer[k].timing);
        }
    json_decref(pr->environment);
    free(pr->shapes);
    free(pr);
}
