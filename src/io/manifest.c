#include "io/manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/fdio.h"
#include "core/log.h"

char *rc_manifest_path(const char *out)
{
    size_t n = strlen(out) + sizeof ".manifest.json";
    char *p = rc_xmalloc(n);
    snprintf(p, n, "%s.manifest.json", out);
    return p;
}

void rc_manifest_init(rc_manifest *m) { memset(m, 0, sizeof *m); }

void rc_manifest_free(rc_manifest *m)
{
    free(m->builds);
    free(m->traces);
    memset(m, 0, sizeof *m);
}

static void copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src != NULL ? src : "");
}

static void now_utc(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static rc_manifest_build *push_build(rc_manifest *m)
{
    m->builds = rc_xrealloc(m->builds, (m->n_builds + 1) * sizeof *m->builds);
    rc_manifest_build *b = &m->builds[m->n_builds++];
    memset(b, 0, sizeof *b);
    return b;
}

static rc_manifest_trace *push_trace(rc_manifest *m)
{
    m->traces = rc_xrealloc(m->traces, (m->n_traces + 1) * sizeof *m->traces);
    rc_manifest_trace *t = &m->traces[m->n_traces++];
    memset(t, 0, sizeof *t);
    return t;
}

void rc_manifest_add_build(rc_manifest *m, const rc_build_info *info)
{
    rc_manifest_build *b = push_build(m);
    copy(b->id, sizeof b->id, info->id);
    copy(b->revision, sizeof b->revision, info->revision);
    b->dirty = info->dirty;
    copy(b->sources_sha256, sizeof b->sources_sha256, info->sources_sha256);
    copy(b->config, sizeof b->config, info->config);
    now_utc(b->first_used_utc);
}

void rc_manifest_add_trace(rc_manifest *m, const char *written, const rc_trace_id *id)
{
    rc_manifest_trace *t = push_trace(m);
    copy(t->written, sizeof t->written, written);
    t->id = *id;
}

/* ---- JSON ---- */

static const char *get_str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s != NULL ? s : "";
}

int rc_manifest_read(const char *out, rc_manifest *m, bool *found, rc_err *err)
{
    rc_manifest_init(m);
    *found = false;
    char *path = rc_manifest_path(out);
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = errno, rc = 0;
        if (e != ENOENT) rc = rc_err_set(err, RC_EXIT_RUNTIME, "%s: %s", path, strerror(e));
        free(path);
        return rc;
    }
    *found = true;
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    int rc = 0;
    if (root == NULL) {
        rc = rc_err_set(err, RC_EXIT_USAGE, "%s:%d: not a readable manifest: %s", path, jerr.line,
                        jerr.text);
    } else if (strcmp(get_str(root, "format"), RC_MANIFEST_FORMAT) != 0) {
        rc = rc_err_set(err, RC_EXIT_USAGE, "%s: format '%s', expected '%s'", path,
                        get_str(root, "format"), RC_MANIFEST_FORMAT);
    } else {
        json_t *sw = json_object_get(root, "sweep");
        copy(m->sweep_name, sizeof m->sweep_name, get_str(sw, "name"));
        copy(m->sweep_file, sizeof m->sweep_file, get_str(sw, "file"));
        m->sweep_hash = strtoull(get_str(sw, "hash"), NULL, 16);
        copy(m->stored, sizeof m->stored, get_str(root, "stored"));
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(root, "builds"), i, v)
        {
            rc_manifest_build *b = push_build(m);
            copy(b->id, sizeof b->id, get_str(v, "id"));
            copy(b->revision, sizeof b->revision, get_str(v, "revision"));
            json_t *d = json_object_get(v, "dirty");
            b->dirty = json_is_boolean(d) ? json_is_true(d) : -1;
            copy(b->sources_sha256, sizeof b->sources_sha256, get_str(v, "sources_sha256"));
            copy(b->config, sizeof b->config, get_str(v, "config"));
            copy(b->first_used_utc, sizeof b->first_used_utc, get_str(v, "first_used_utc"));
        }
        json_array_foreach(json_object_get(root, "traces"), i, v)
        {
            rc_manifest_trace *t = push_trace(m);
            copy(t->written, sizeof t->written, get_str(v, "written"));
            copy(t->id.name, sizeof t->id.name, get_str(v, "name"));
            copy(t->id.path, sizeof t->id.path, get_str(v, "path"));
            copy(t->id.sha256, sizeof t->id.sha256, get_str(v, "sha256"));
            t->id.lines = (uint32_t)json_integer_value(json_object_get(v, "lines"));
        }
    }
    json_decref(root);
    free(path);
    if (rc != 0) rc_manifest_free(m);
    return rc;
}

static json_t *to_json(const rc_manifest *m)
{
    char hash[17];
    snprintf(hash, sizeof hash, "%016" PRIx64, m->sweep_hash);
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string(RC_MANIFEST_FORMAT));
    json_object_set_new(root, "sweep", json_pack("{s:s, s:s, s:s}", "name", m->sweep_name,
                                                 "file", m->sweep_file, "hash", hash));
    json_object_set_new(root, "stored", json_string(m->stored));
    json_t *builds = json_array();
    for (size_t i = 0; i < m->n_builds; i++) {
        const rc_manifest_build *b = &m->builds[i];
        json_array_append_new(
            builds, json_pack("{s:s, s:s, s:o, s:s, s:s, s:s}", "id", b->id, "revision",
                              b->revision, "dirty", b->dirty < 0 ? json_null() : json_boolean(b->dirty),
                              "sources_sha256", b->sources_sha256, "config", b->config,
                              "first_used_utc", b->first_used_utc));
    }
    json_object_set_new(root, "builds", builds);
    json_t *traces = json_array();
    for (size_t i = 0; i < m->n_traces; i++) {
        const rc_manifest_trace *t = &m->traces[i];
        json_array_append_new(traces, json_pack("{s:s, s:s, s:s, s:s, s:I}", "written", t->written,
                                                "name", t->id.name, "path", t->id.path, "sha256",
                                                t->id.sha256, "lines", (json_int_t)t->id.lines));
    }
    json_object_set_new(root, "traces", traces);
    return root;
}

int rc_manifest_write(const char *out, const rc_manifest *m, rc_err *err)
{
    char *path = rc_manifest_path(out);
    size_t tl = strlen(path) + 8;
    char *tmp = rc_xmalloc(tl);
    snprintf(tmp, tl, "%s.tmp", path);
    json_t *root = to_json(m);
    char *text = json_dumps(root, JSON_INDENT(2));
    json_decref(root);
    RC_ASSERT(text != NULL);
    int rc = 0;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || rc_fd_write_all(fd, text, strlen(text)) != 0 ||
        rc_fd_write_all(fd, "\n", 1) != 0 || fsync(fd) != 0) {
        rc = rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot write: %s", tmp, strerror(errno));
    }
    if (fd >= 0 && close(fd) != 0 && rc == 0)
        rc = rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot write: %s", tmp, strerror(errno));
    /* Replaced in one step: a reader sees the old or the new manifest, never half. */
    if (rc == 0 && rename(tmp, path) != 0)
        rc = rc_err_set(err, RC_EXIT_RUNTIME, "cannot rename %s to %s: %s", tmp, path,
                        strerror(errno));
    if (rc != 0) unlink(tmp);
    free(text);
    free(tmp);
    free(path);
    return rc;
}

/* ---- comparison ---- */

static const rc_manifest_build *find_build(const rc_manifest *m, const char *id)
{
    for (size_t i = 0; i < m->n_builds; i++)
        if (!strcmp(m->builds[i].id, id)) return &m->builds[i];
    return NULL;
}

/* `same_config`: leave the configuration out (the other build's says it). */
static void describe_build(const rc_manifest_build *b, bool same_config, char *buf, size_t n)
{
    snprintf(buf, n, "build %s (git %s%s, sources sha256 %.12s...%s%s)", b->id, b->revision,
             b->dirty == 1 && !strstr(b->revision, "dirty") ? ", dirty" : "", b->sources_sha256,
             same_config ? ", same configuration" : ", ", same_config ? "" : b->config);
}

int rc_manifest_check(const rc_manifest *old, const rc_manifest *now, const char *out,
                      bool allow_other_build, rc_err *err)
{
    for (size_t i = 0; i < now->n_traces; i++) {
        const rc_manifest_trace *t = &now->traces[i];
        const rc_manifest_trace *same = NULL, *other = NULL;
        for (size_t k = 0; k < old->n_traces; k++) {
            const rc_manifest_trace *o = &old->traces[k];
            if (strcmp(o->written, t->written) != 0 && strcmp(o->id.name, t->id.name) != 0)
                continue;
            if (!strcmp(o->id.sha256, t->id.sha256)) same = o;
            else if (other == NULL) other = o;
        }
        if (same == NULL && other != NULL)
            return rc_err_set(err, RC_EXIT_USAGE,
                              "trace '%s' is not the file the finished jobs in %s used: they "
                              "read %s (sha256 %s, %u lines), this run finds %s (sha256 %s, %u "
                              "lines); refusing to mix results of two traces (point --data-dir "
                              "at the original file, or choose another --out)",
                              t->written, out, other->id.path, other->id.sha256, other->id.lines,
                              t->id.path, t->id.sha256, t->id.lines);
    }
    if (strcmp(old->stored, now->stored) != 0)
        return rc_err_set(err, RC_EXIT_USAGE,
                          "the finished jobs in %s were stored with %s, this run asks for %s: "
                          "the file would hold jobs stored both ways; resume with the same "
                          "setting, or choose another --out",
                          out, old->stored, now->stored);
    RC_ASSERT(now->n_builds >= 1);
    for (size_t i = 0; i < now->n_builds && !allow_other_build; i++) {
        const rc_manifest_build *cur = &now->builds[i];
        if (find_build(old, cur->id) != NULL) continue;
        char was[1400], is[1400];
        const rc_manifest_build *last = old->n_builds > 0 ? &old->builds[old->n_builds - 1] : NULL;
        if (last != NULL) describe_build(last, false, was, sizeof was);
        else snprintf(was, sizeof was, "an unrecorded build");
        describe_build(cur, last != NULL && !strcmp(last->config, cur->config), is, sizeof is);
        return rc_err_set(err, RC_EXIT_USAGE,
                          "the finished jobs in %s were run by %s%s; %s is %s. "
                          "Resuming would mix results of two builds: use the original binary, "
                          "choose another --out, or pass --allow-other-build (each job records "
                          "the build that ran it)",
                          out, was, old->n_builds > 1 ? " (and earlier builds)" : "",
                          i == 0 ? "this binary" : "a worker's binary", is);
    }
    return 0;
}

bool rc_manifest_merge(rc_manifest *old, const rc_manifest *now)
{
    bool changed = strcmp(old->sweep_name, now->sweep_name) != 0 ||
                   strcmp(old->sweep_file, now->sweep_file) != 0 ||
                   old->sweep_hash != now->sweep_hash || strcmp(old->stored, now->stored) != 0;
    copy(old->sweep_name, sizeof old->sweep_name, now->sweep_name);
    copy(old->sweep_file, sizeof old->sweep_file, now->sweep_file);
    old->sweep_hash = now->sweep_hash;
    copy(old->stored, sizeof old->stored, now->stored);
    for (size_t i = 0; i < now->n_builds; i++)
        if (find_build(old, now->builds[i].id) == NULL) {
            *push_build(old) = now->builds[i];
            changed = true;
        }
    for (size_t i = 0; i < now->n_traces; i++) {
        const rc_manifest_trace *t = &now->traces[i];
        bool have = false;
        for (size_t k = 0; k < old->n_traces && !have; k++)
            have = !strcmp(old->traces[k].written, t->written) &&
                   !strcmp(old->traces[k].id.sha256, t->id.sha256);
        if (!have) {
            *push_trace(old) = *t;
            changed = true;
        }
    }
    return changed;
}
