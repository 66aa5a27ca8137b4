/* partition: SLURM partition facts for `rcsim slurm` (slurm/partition.h). */
#include "slurm/partition.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#include "core/log.h"

/* Seconds an unreachable controller may cost per question. */
#define QUERY_TIMEOUT "5"

/* Runs a fixed SLURM command line (stderr discarded, bounded by `timeout`
 * when coreutils has it) and returns its stdout, or NULL when it could not
 * run or failed; `why` then holds a short reason.  The caller frees. */
static char *run_query(const char *cmd, char *why, size_t why_n)
{
    char line[512];
    snprintf(line, sizeof line,
             "if command -v timeout >/dev/null 2>&1; then exec timeout " QUERY_TIMEOUT " %s; "
             "else exec %s; fi 2>/dev/null",
             cmd, cmd);
    FILE *f = popen(line, "r");
    if (f == NULL) {
        if (why) snprintf(why, why_n, "cannot run %s: %s", cmd, strerror(errno));
        return NULL;
    }
    size_t n = 0, cap = 4096;
    char *buf = rc_xmalloc(cap);
    for (;;) {
        if (n + 1024 + 1 > cap) buf = rc_xrealloc(buf, cap *= 2);
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    buf[n] = '\0';
    int st = pclose(f);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        if (why) {
            const char *tool = cmd;
            size_t tl = strcspn(cmd, " ");
            if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
                snprintf(why, why_n, "%.*s is not installed", (int)tl, tool);
            else if (WIFEXITED(st) && WEXITSTATUS(st) == 124)
                snprintf(why, why_n, "%.*s did not answer within " QUERY_TIMEOUT " s", (int)tl,
                         tool);
            else
                snprintf(why, why_n, "%.*s could not ask a SLURM controller (none configured "
                                     "here, or it is down)", (int)tl, tool);
        }
        free(buf);
        return NULL;
    }
    return buf;
}

/* Value of KEY= in a line of space-separated KEY=VALUE words, copied to out. */
static bool kv_get(const char *line, const char *key, char *out, size_t n)
{
    size_t kl = strlen(key);
    const char *p = line;
    while (*p) {
        while (*p == ' ') p++;
        const char *end = p + strcspn(p, " \n");
        if ((size_t)(end - p) > kl && !strncmp(p, key, kl) && p[kl] == '=') {
            size_t vl = (size_t)(end - p) - kl - 1;
            if (vl >= n) vl = n - 1;
            memcpy(out, p + kl + 1, vl);
            out[vl] = '\0';
            return true;
        }
        p = end;
        if (*p == '\n') break;
    }
    return false;
}

static long kv_long(const char *line, const char *key, long fallback)
{
    char v[64];
    if (!kv_get(line, key, v, sizeof v)) return fallback;
    if (!strcasecmp(v, "UNLIMITED") || !strcasecmp(v, "INFINITE")) return RC_SLURM_UNLIMITED;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end) return fallback;
    return x;
}

int rc_slurm_parse_time(const char *text, long *seconds)
{
    if (!strcasecmp(text, "infinite") || !strcasecmp(text, "unlimited")) {
        *seconds = RC_SLURM_UNLIMITED;
        return 0;
    }
    long f[4] = {0};
    int nf = 0;
    long days = -1;
    const char *p = text;
    const char *dash = strchr(text, '-');
    if (dash != NULL) {
        char *end;
        days = strtol(text, &end, 10);
        if (end != dash || end == text || days < 0) return -1;
        p = dash + 1;
    }
    for (;;) {
        char *end;
        if (!(*p >= '0' && *p <= '9')) return -1;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (errno != 0 || v < 0 || v > 1000000000L || nf == 3) return -1;
        f[nf++] = v;
        if (*end == '\0') break;
        if (*end != ':') return -1;
        p = end + 1;
    }
    long s;
    if (days >= 0) { /* D-H, D-H:M, D-H:M:S */
        s = days * 86400 + f[0] * 3600 + (nf > 1 ? f[1] * 60 : 0) + (nf > 2 ? f[2] : 0);
    } else if (nf == 1) { /* MIN */
        s = f[0] * 60;
    } else if (nf == 2) { /* MIN:SEC */
        s = f[0] * 60 + f[1];
    } else { /* H:M:S */
        s = f[0] * 3600 + f[1] * 60 + f[2];
    }
    if (s <= 0) return -1;
    *seconds = s;
    return 0;
}

/* CPUs per node of partition `name` from `sinfo -h -o "%R %c"`: the smallest
 * over its lines ("2+" means some nodes have more). */
static void cpus_per_node(const char *name, rc_slurm_partition *p)
{
    char *out = run_query("sinfo -h -o '%R %c'", NULL, 0);
    if (out == NULL) return;
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char part[128], cpus[32];
        if (sscanf(l, "%127s %31s", part, cpus) != 2 || strcmp(part, name) != 0) continue;
        char *end;
        long c = strtol(cpus, &end, 10);
        if (end == cpus || c <= 0) continue;
        if (*end == '+') p->cpus_vary = true;
        if (p->cpus_per_node > 0 && c != p->cpus_per_node) p->cpus_vary = true;
        if (p->cpus_per_node == 0 || c < p->cpus_per_node) p->cpus_per_node = c;
    }
    free(out);
}

rc_slurm_part_status rc_slurm_partition_query(const char *name, rc_slurm_partition *p, char *why,
                                              size_t why_n)
{
    memset(p, 0, sizeof *p);
    char *out = run_query("scontrol show partition -o", why, why_n);
    if (out == NULL) return RC_SLURM_PART_UNKNOWN;
    char names[512] = "";
    bool found = false;
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l && !found;
         l = strtok_r(NULL, "\n", &save)) {
        char pname[128], def[16] = "";
        if (!kv_get(l, "PartitionName", pname, sizeof pname)) continue;
        kv_get(l, "Default", def, sizeof def);
        bool is_def = !strcasecmp(def, "YES");
        size_t nl = strlen(names);
        if (nl + strlen(pname) + 4 < sizeof names)
            snprintf(names + nl, sizeof names - nl, "%s%s%s", nl ? ", " : "", pname,
                     is_def ? "*" : "");
        if (name != NULL ? strcmp(pname, name) != 0 : !is_def) continue;
        found = true;
        snprintf(p->name, sizeof p->name, "%s", pname);
        p->is_default = is_def;
        if (!kv_get(l, "State", p->state, sizeof p->state)) snprintf(p->state, sizeof p->state, "?");
        p->total_cpus = kv_long(l, "TotalCPUs", 0);
        p->total_nodes = kv_long(l, "TotalNodes", 0);
        p->max_nodes = kv_long(l, "MaxNodes", RC_SLURM_UNLIMITED);
        p->max_cpus_per_node = kv_long(l, "MaxCPUsPerNode", RC_SLURM_UNLIMITED);
        p->max_time_s = RC_SLURM_UNLIMITED;
        snprintf(p->max_time, sizeof p->max_time, "UNLIMITED");
        char mt[32];
        if (kv_get(l, "MaxTime", mt, sizeof mt)) {
            long s;
            if (rc_slurm_parse_time(mt, &s) == 0) {
                p->max_time_s = s;
                snprintf(p->max_time, sizeof p->max_time, "%s", mt);
            }
        }
    }
    free(out);
    if (!found) {
        if (why) {
            if (names[0] == '\0')
                snprintf(why, why_n, "scontrol lists no partitions");
            else if (name == NULL)
                snprintf(why, why_n, "no default partition (partitions: %s)", names);
            else
                snprintf(why, why_n, "no partition '%s' on this cluster (partitions: %s; * = "
                                     "default)", name, names);
        }
        /* Without a default partition, sbatch needs --partition: that is the
         * user's to give, not a reason to refuse here. */
        return name == NULL || names[0] == '\0' ? RC_SLURM_PART_UNKNOWN : RC_SLURM_PART_NO_SUCH;
    }
    cpus_per_node(p->name, p);
    return RC_SLURM_PART_OK;
}

long rc_slurm_max_array_size(void)
{
    char *out = run_query("scontrol show config", NULL, 0);
    if (out == NULL) return -1;
    long v = -1;
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char key[64];
        long x;
        if (sscanf(l, "%63s = %ld", key, &x) == 2 && !strcmp(key, "MaxArraySize")) v = x;
    }
    free(out);
    return v;
}
