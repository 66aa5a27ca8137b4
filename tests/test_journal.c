/* journal: round trip, torn and corrupt last records, foreign sweeps. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/journal.h"

#define HASH 0x1234abcd5678ef00ULL

typedef struct seen {
    int n;
    uint64_t ids[16];
    size_t lens[16];
    char first[16];
    int32_t ranks[16];
    char hosts[16][64];
} seen;

static int collect(void *ctx, uint64_t id, const rc_journal_meta *meta, const void *image,
                   size_t len)
{
    seen *s = ctx;
    s->ids[s->n] = id;
    s->lens[s->n] = len;
    s->first[s->n] = len ? ((const char *)image)[0] : 0;
    s->ranks[s->n] = meta->rank;
    snprintf(s->hosts[s->n], 64, "%s", meta->host);
    s->n++;
    return 0;
}

static char path[256];

static void setup(void)
{
    snprintf(path, sizeof path, "/tmp/rcsim-test-journal-%d.journal", (int)getpid());
    unlink(path);
}
static void teardown(void) { unlink(path); }

static void write_three(void)
{
    rc_err err = {0};
    rc_journal *j = rc_journal_open(path, HASH, 0, &err);
    cr_assert_not_null(j, "open: %s", err.msg);
    for (int i = 0; i < 3; i++) {
        char img[1000];
        memset(img, 'a' + i, sizeof img);
        rc_journal_meta m = {.rank = i + 1, .finished = 1e9};
        snprintf(m.host, sizeof m.host, "node%d", i);
        cr_assert_eq(rc_journal_append(j, 100 + (uint64_t)i, &m, img, 100 * (size_t)(i + 1), &err),
                     0, "%s", err.msg);
    }
    rc_journal_close(j);
}

static off_t file_size(void)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    return st.st_size;
}

TestSuite(journal, .init = setup, .fini = teardown);

Test(journal, missing_file_is_empty_not_error)
{
    rc_err err = {0};
    rc_journal_scan scan;
    cr_assert_eq(rc_journal_read(path, HASH, collect, &(seen){0}, &scan, &err), 0);
    cr_assert_eq(scan.exists, 0);
    cr_assert_eq(scan.records, 0);
}

Test(journal, round_trip_keeps_ids_images_and_provenance)
{
    write_three();
    seen s = {0};
    rc_err err = {0};
    rc_journal_scan scan;
    cr_assert_eq(rc_journal_read(path, HASH, collect, &s, &scan, &err), 0, "%s", err.msg);
    cr_assert_eq(s.n, 3, "records read: %d", s.n);
    cr_assert_eq(scan.dropped_bytes, 0);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(s.ids[i], 100 + (uint64_t)i);
        cr_assert_eq(s.lens[i], 100 * (size_t)(i + 1), "len %zu", s.lens[i]);
        cr_assert_eq(s.first[i], 'a' + i);
        cr_assert_eq(s.ranks[i], i + 1);
        char want[16];
        snprintf(want, sizeof want, "node%d", i);
        cr_assert_str_eq(s.hosts[i], want);
    }
    cr_assert_eq((off_t)scan.valid_bytes, file_size());
}

Test(journal, truncated_last_record_is_dropped_and_reported)
{
    write_three();
    off_t full = file_size();
    cr_assert_eq(truncate(path, full - 7), 0);
    seen s = {0};
    rc_err err = {0};
    rc_journal_scan scan;
    cr_assert_eq(rc_journal_read(path, HASH, collect, &s, &scan, &err), 0, "%s", err.msg);
    cr_assert_eq(s.n, 2, "records read: %d", s.n);
    cr_assert_gt(scan.dropped_bytes, 0);
    cr_assert_eq(scan.valid_bytes + scan.dropped_bytes, (size_t)(full - 7));
    /* Appending after a torn tail drops it first, so the new record is readable. */
    rc_journal *j = rc_journal_open(path, HASH, scan.valid_bytes, &err);
    cr_assert_not_null(j, "%s", err.msg);
    rc_journal_meta m = {.rank = 9};
    cr_assert_eq(rc_journal_append(j, 999, &m, "zz", 2, &err), 0);
    rc_journal_close(j);
    seen s2 = {0};
    cr_assert_eq(rc_journal_read(path, HASH, collect, &s2, &scan, &err), 0);
    cr_assert_eq(s2.n, 3, "records after append: %d", s2.n);
    cr_assert_eq(s2.ids[2], 999);
    cr_assert_eq(scan.dropped_bytes, 0);
}

Test(journal, corrupt_last_record_fails_its_crc)
{
    write_three();
    off_t full = file_size();
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    fseek(f, (long)full - 50, SEEK_SET); /* inside the third image */
    fputc('X', f);
    fclose(f);
    seen s = {0};
    rc_err err = {0};
    rc_journal_scan scan;
    cr_assert_eq(rc_journal_read(path, HASH, collect, &s, &scan, &err), 0);
    cr_assert_eq(s.n, 2, "records read: %d", s.n);
    cr_assert_eq(scan.dropped_bytes, (size_t)(full - (off_t)scan.valid_bytes));
}

Test(journal, journal_of_another_sweep_is_refused)
{
    write_three();
    rc_err err = {0};
    rc_journal_scan scan;
    int rc = rc_journal_read(path, HASH + 1, collect, &(seen){0}, &scan, &err);
    cr_assert_eq(rc, RC_EXIT_USAGE, "rc %d", rc);
    cr_assert(strstr(err.msg, "another sweep") != NULL, "message: %s", err.msg);
}

Test(journal, not_a_journal_is_refused)
{
    FILE *f = fopen(path, "wb");
    fputs("this is not a journal at all", f);
    fclose(f);
    rc_err err = {0};
    rc_journal_scan scan;
    cr_assert_eq(rc_journal_read(path, HASH, collect, &(seen){0}, &scan, &err), RC_EXIT_USAGE);
}
