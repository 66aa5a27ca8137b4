/* share: run-time location of rcsim's data files (cli/share.h). */
#include "cli/share.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* If `dir` holds analysis/, its canonical path goes into buf. */
static int try_dir(const char *dir, char *buf, size_t n)
{
    char probe[PATH_MAX + 16];
    snprintf(probe, sizeof probe, "%s/analysis", dir);
    if (!is_dir(probe)) return -1;
    char *real = realpath(dir, NULL);
    if (real == NULL || strlen(real) >= n) {
        free(real);
        return -1;
    }
    strcpy(buf, real);
    free(real);
    return 0;
}

int rc_share_dir(char *buf, size_t n, rc_err *err)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return rc_err_set(err, RC_EXIT_RUNTIME, "cannot find this program's path "
                                                "(/proc/self/exe): %s", strerror(errno));
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL) *slash = '\0';
    char inst[PATH_MAX + 32], build[PATH_MAX + 32];
    snprintf(inst, sizeof inst, "%s/../share/rcsim", exe);
    snprintf(build, sizeof build, "%s/share/rcsim", exe);
    if (try_dir(inst, buf, n) == 0 || try_dir(build, buf, n) == 0) return 0;
    return rc_err_set(err, RC_EXIT_RUNTIME,
                      "cannot find rcsim's analysis files: no analysis/ in %s (installed tree) "
                      "or %s (build tree); install with `cmake --install BUILD --prefix DIR`",
                      inst, build);
}

const char *rc_share_python(void)
{
    const char *env = getenv("RCSIM_PYTHON");
    if (env != NULL && env[0] != '\0') return env;
    if (access("/usr/bin/python3", X_OK) == 0) return "/usr/bin/python3";
    return "python3";
}
