/*
 * describe.c - strategies.json, a run's own table of strategies (see
 * describe.h).
 */
#include "bundle/describe.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/paths.h"
#include "model/json.h"

static const char *const role_names[] = {"tiled", "control", "reference"};
static const char *const trace_names[] = {"phased", "tasks", "rows", "none"};

json_t *se_describe_json(const se_strategy_table *t, const se_operation *op)
{
    char letters[SE_OP_MAX_PHASES + 1];
    se_operation_letters(op, letters);
    json_t *root = json_object(), *arr = json_array(), *w = json_object(),
           *phases = json_array();
    int failed = !root || !arr || !w || !phases;
    for (int i = 0; !failed && letters[i]; i++) {
        char ph[2] = {letters[i], '\0'};
        failed |= json_array_append_new(phases, json_string(ph)) != 0;
    }
    for (int i = 0; !failed && i < t->n; i++) {
        const se_strategy_info *s = &t->s[i];
        json_t *o = json_object();
        failed |= !o;
        if (failed)
            break;
        failed |= json_object_set_new(o, "name", json_string(s->name)) != 0;
        failed |= json_object_set_new(o, "mechanism", json_string(s->mechanism)) != 0;
        failed |= json_object_set_new(o, "launch", json_string(s->launch)) != 0;
        failed |= json_object_set_new(o, "role", json_string(role_names[s->role])) != 0;
        failed |= json_object_set_new(o, "coop_group",
                                      s->coop_group ? json_string(s->coop_group) : json_null()) != 0;
        failed |= json_object_set_new(o, "init_control", s->init_control
                                                             ? json_string(s->init_control)
                                                             : json_null()) != 0;
        failed |= json_object_set_new(o, "trace", json_string(trace_names[s->trace])) != 0;
        failed |= json_object_set_new(o, "colour", json_string(s->colour)) != 0;
        failed |= json_object_set_new(o, "description", json_string(s->description)) != 0;
        failed |= json_array_append_new(arr, o) != 0;
    }
    if (!failed) {
        failed |= json_object_set_new(w, "name", json_string(op->name)) != 0;
        failed |= json_object_set_new(w, "phases", phases) != 0;
        phases = NULL;
        failed |= json_object_set_new(root, "format", json_string(SE_STRATEGIES_FORMAT)) != 0;
        failed |= json_object_set_new(root, "version", json_integer(SE_STRATEGIES_VERSION)) != 0;
        failed |= json_object_set_new(root, "workload", w) != 0;
        w = NULL;
        failed |= json_object_set_new(root, "strategies", arr) != 0;
        arr = NULL;
    }
    json_decref(phases);
    json_decref(w);
    json_decref(arr);
    if (failed) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* One of names[0..n), by its index. */
static int pick(const char *value, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(value, names[i]) == 0)
            return i;
    return -1;
}

static int safe_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 40)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
              s[i] == '_'))
            return 0;
    return 1;
}

static int colour_ok(const char *s)
{
    if (strlen(s) != 7 || s[0] != '#')
        return 0;
    for (int i = 1; i < 7; i++)
        if (!strchr("0123456789abcdefABCDEF", s[i]))
            return 0;
    return 1;
}

static se_status str_field(const json_t *o, const char *key, const char **out, const char *where,
                           size_t i, se_err *err)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v))
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies[%zu].%s': expected a string",
                       where, i, key);
    *out = json_string_value(v);
    return SE_OK;
}

static se_status parse_entry(const json_t *o, const char *where, size_t i, se_strategy_info *s,
                             se_err *err)
{
    static const char *const keys[] = {"name",         "mechanism", "launch", "role",
                                       "coop_group",   "init_control", "trace", "colour",
                                       "description"};
    if (!json_is_object(o))
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies[%zu]': expected an object",
                       where, i);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v) {
        int known = 0;
        for (size_t j = 0; j < sizeof keys / sizeof keys[0]; j++)
            known |= strcmp(k, keys[j]) == 0;
        if (!known)
            return se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies[%zu].%.80s': unknown",
                           where, i, k);
    }
    const char *role = NULL, *trace = NULL;
    se_status st = str_field(o, "name", &s->name, where, i, err);
    if (st == SE_OK)
        st = str_field(o, "mechanism", &s->mechanism, where, i, err);
    if (st == SE_OK)
        st = str_field(o, "launch", &s->launch, where, i, err);
    if (st == SE_OK)
        st = str_field(o, "role", &role, where, i, err);
    if (st == SE_OK)
        st = str_field(o, "trace", &trace, where, i, err);
    if (st == SE_OK)
        st = str_field(o, "colour", &s->colour, where, i, err);
    if (st == SE_OK)
        st = str_field(o, "description", &s->description, where, i, err);
    if (st != SE_OK)
        return st;
    if (!safe_name(s->name))
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies[%zu].name': '%.60s' is not "
                       "1 to 40 of [a-z0-9_-]", where, i, s->name);
    if (!safe_name(s->mechanism))
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies[%zu].mechanism': '%.60s' "
                       "is not 1 to 40 of [a-z0-9_-]", where, i, s->mechanism);
    if (strcmp(s->launch, "stream") != 0 && strcmp(s->launch, "graph") != 0)
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies[%zu].launch': expected "
                       "\"stream\" or \"graph\"", where, i);
    int r = pick(role, role_names, 3), t = pick(trace, trace_names, 4);
    if (r < 0)
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies[%zu].role': expected "
                       "tiled, control or reference", where, i);
    if (t < 0)
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies[%zu].trace': expected "
                       "phased, tasks, rows or none", where, i);
    if (!colour_ok(s->colour))
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies[%zu].colour': expected "
                       "#rrggbb", where, i);
    json_t *g = json_object_get(o, "coop_group");
    if (json_is_null(g))
        s->coop_group = NULL;
    else if (json_is_string(g) && safe_name(json_string_value(g)))
        s->coop_group = json_string_value(g);
    else
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies[%zu].coop_group': expected "
                       "null or a name of [a-z0-9_-]", where, i);
    json_t *ic = json_object_get(o, "init_control");
    if (json_is_null(ic))
        s->init_control = NULL;
    else if (json_is_string(ic) && safe_name(json_string_value(ic)))
        s->init_control = json_string_value(ic);
    else
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies[%zu].init_control': "
                       "expected null or a name of [a-z0-9_-]", where, i);
    s->role = (se_role)r;
    s->trace = (se_trace_kind)t;
    s->tiled = s->role == SE_ROLE_TILED;
    s->cooperative = s->coop_group != NULL;
    return SE_OK;
}

static se_status parse_workload(const json_t *root, const char *where,
                                const se_operation **op, se_err *err)
{
    json_t *w = json_object_get(root, "workload");
    const char *name = json_string_value(json_object_get(w, "name"));
    json_t *phases = json_object_get(w, "phases");
    if (!json_is_object(w) || !name || !json_is_array(phases))
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'workload': expected an object with "
                       "\"name\" and \"phases\"", where);
    *op = se_operation_find(name);
    if (!*op) {
        char known[256];
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'workload.name': '%.60s' is not a "
                       "workload this program renders (%s)", where, name,
                       se_operation_names(known, sizeof known));
    }
    char letters[SE_OP_MAX_PHASES + 1];
    se_operation_letters(*op, letters);
    size_t n = strlen(letters);
    int same = json_array_size(phases) == n;
    for (size_t i = 0; same && i < n; i++) {
        const char *ph = json_string_value(json_array_get(phases, i));
        same = ph && ph[0] == letters[i] && ph[1] == '\0';
    }
    if (!same)
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'workload.phases': expected the "
                       "phases of %s, %s", where, (*op)->name, letters);
    return SE_OK;
}

se_status se_describe_parse(const json_t *root, const char *where, se_run_strategies **out,
                            se_err *err)
{
    *out = NULL;
    static const char *const keys[] = {"format", "version", "workload", "strategies"};
    const char *k;
    json_t *v;
    if (!json_is_object(root))
        return se_fail(err, SE_ERR_VALIDATION, "%s: expected an object", where);
    json_object_foreach((json_t *)root, k, v) {
        int known = 0;
        for (size_t j = 0; j < sizeof keys / sizeof keys[0]; j++)
            known |= strcmp(k, keys[j]) == 0;
        if (!known)
            return se_fail(err, SE_ERR_VALIDATION, "%s: field '%.80s': unknown", where, k);
    }
    const se_operation *op = NULL;
    se_status st = parse_workload(root, where, &op, err);
    if (st != SE_OK)
        return st;
    json_t *arr = json_object_get(root, "strategies");
    size_t n = json_array_size(arr);
    if (!json_is_array(arr) || n == 0)
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies': expected a non-empty "
                       "array", where);
    if (n > SE_STRATEGY_MAX)
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies': %zu strategies, more than "
                       "the %d a protocol's selection can hold", where, n, SE_STRATEGY_MAX);
    se_run_strategies *rs = calloc(1, sizeof *rs);
    if (!rs)
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", where);
    rs->json = json_incref((json_t *)root);
    rs->op = op;
    for (size_t i = 0; st == SE_OK && i < n; i++) {
        st = parse_entry(json_array_get(arr, i), where, i, &rs->entries[i], err);
        for (size_t j = 0; st == SE_OK && j < i; j++)
            if (strcmp(rs->entries[j].name, rs->entries[i].name) == 0)
                st = se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies[%zu].name': '%s' "
                             "twice", where, i, rs->entries[i].name);
    }
    if (st == SE_OK && !rs->entries[0].tiled)
        st = se_fail(err, SE_ERR_VALIDATION, "%s: field 'strategies[0]': the baseline, '%s', "
                     "is not tiled", where, rs->entries[0].name);
    if (st != SE_OK) {
        se_run_strategies_free(rs);
        return st;
    }
    rs->table = (se_strategy_table){SE_STRATEGIES_JSON, (int)n, rs->entries};
    *out = rs;
    return SE_OK;
}

void se_run_strategies_free(se_run_strategies *rs)
{
    if (!rs)
        return;
    json_decref(rs->json);
    free(rs);
}

se_status se_describe_load(const char *dir, se_run_strategies **owned,
                           const se_strategy_table **table, se_err *err)
{
    *owned = NULL;
    *table = se_strategy_legacy_v1();
    char path[4400];
    se_path_join(dir, SE_STRATEGIES_JSON, path, sizeof path);
    if (access(path, F_OK) != 0)
        return SE_OK;
    json_t *j = NULL;
    se_status st = se_json_load(path, SE_STRATEGIES_JSON, SE_STRATEGIES_FORMAT,
                                SE_STRATEGIES_VERSION, NULL, &j, err);
    if (st == SE_OK)
        st = se_describe_parse(j, SE_STRATEGIES_JSON, owned, err);
    json_decref(j);
    if (st == SE_OK)
        *table = &(*owned)->table;
    return st;
}
