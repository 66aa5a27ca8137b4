/* Tests of io/lock: exclusive across processes, the holder named, a dead holder's record
 * reported and taken over, the file removed on release. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/lock.h"

static char out[256];

static void setup(void)
{
    snprintf(out, sizeof out, "/tmp/rcsim-test-lock-%d.h5", (int)getpid());
    char *p = rc_lock_path(out);
    unlink(p);
    free(p);
}

TestSuite(lock, .init = setup);

/* A child that takes the lock, says so through a pipe and waits to be killed. */
static pid_t holder(void)
{
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        close(fd[0]);
        rc_err err = {0};
        rc_lock *l = rc_lock_take(out, &err);
        char c = l ? 'y' : 'n';
        if (write(fd[1], &c, 1) != 1) _exit(1);
        for (;;) pause();
    }
    close(fd[1]);
    char c = 0;
    cr_assert_eq(read(fd[0], &c, 1), 1);
    close(fd[0]);
    cr_assert_eq(c, 'y', "the child could not take the lock");
    return pid;
}

Test(lock, second_taker_is_refused_naming_the_holder)
{
    pid_t pid = holder();
    rc_err err = {0};
    rc_lock *l = rc_lock_take(out, &err);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    cr_assert_null(l);
    cr_expect_eq(err.code, 2);
    char want[64];
    snprintf(want, sizeof want, "pid %d ", (int)pid);
    cr_expect(strstr(err.msg, want) != NULL, "message lacks '%s': %s", want, err.msg);
    cr_expect(strstr(err.msg, "in use by another rcsim sweep") != NULL, "%s", err.msg);
}

Test(lock, dead_holder_is_taken_over_and_release_removes_the_file)
{
    pid_t pid = holder();
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    char *path = rc_lock_path(out);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "kill -9 leaves the file");
    cr_assert_gt(st.st_size, 0);
    rc_err err = {0};
    rc_lock *l = rc_lock_take(out, &err);
    cr_assert_not_null(l, "%s", err.msg);
    rc_lock_release(l);
    cr_expect_neq(stat(path, &st), 0, "release leaves %s", path);
    free(path);
}

Test(lock, missing_directory_is_a_usage_error)
{
    rc_err err = {0};
    cr_assert_null(rc_lock_take("/nonexistent-rcsim-dir/r.h5", &err));
    cr_expect_eq(err.code, 2);
    cr_expect(strstr(err.msg, "/nonexistent-rcsim-dir/r.h5.lock") != NULL, "%s", err.msg);
}
