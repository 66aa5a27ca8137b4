/* journal: compact records, group commit, torn and corrupt tails, old format. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/journal.h"

#define HASH 0x1234abcd5678ef00ULL

typedef struct seen {
    int n;
    uint64_t ids[600];
    size_t lens[600];
    char first[600];
    int32_t ranks[600];
    char hosts[600][64];
    char builds[600][64];
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
    snprintf(s->builds[s->n], 64, "%s", meta->build);
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

static off_t file_size(void)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    return st.st_size;
}

static void append_three(rc_journal *j, uint64_t first_id)
{
    for (int i = 0; i < 3; i++) {
        char img[1000];
        memset(img, 'a' + i, sizeof img);
        rc_journal_meta m = {.rank = i + 1, .finished = 1e9};
        snprintf(m.host, sizeof m.host, "node%d", i);
        rc_journal_append(j, first_id + (uint64_t)i, &m, img, 100 * (size_t)(i + 1));
    }
}

static void write_three(void)
{
    rc_err err = {0};
    rc_journal *j = rc_journal_open(path, HASH, 0, "build-A", &err);
    cr_assert_not_null(j, "open: %s", err.msg);
    append_three(j, 100);
    cr_assert_eq(rc_journal_commit(j, &err), 0, "%s", err.msg);
    rc_journal_close(j);
}

static seen *read_all(rc_journal_scan *scan)
{
    seen *s = calloc(1, sizeof *s);
    rc_err err = {0};
    cr_assert_eq(rc_journal_read(path, collect, s, scan, &err), 0, "%s", err.msg);
    return s;
}

TestSuite(journal, .init = setup, .fini = teardown);

Test(journal, missing_file_is_empty_not_error)
{
    rc_err err = {0};
    rc_journal_scan scan;
    seen s = {0};
    cr_assert_eq(rc_journal_read(path, collect, &s, &scan, &err), 0);
    cr_assert_eq(scan.exists, 0);
    cr_assert_eq(scan.records, 0);
}

Test(journal, round_trip_keeps_ids_images_provenance_and_build)
{
    write_three();
    rc_journal_scan scan;
    seen *s = read_all(&scan);
    cr_assert_eq(s->n, 3, "records read: %d", s->n);
    cr_assert_eq(scan.dropped_bytes, 0);
    cr_assert_eq(scan.sessions, 1);
    cr_assert_eq(scan.sweep_hash, HASH);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(s->ids[i], 100 + (uint64_t)i);
        cr_assert_eq(s->lens[i], 100 * (size_t)(i + 1), "len %zu", s->lens[i]);
        cr_assert_eq(s->first[i], 'a' + i);
        cr_assert_eq(s->ranks[i], i + 1);
        char want[16];
        snprintf(want, sizeof want, "node%d", i);
        cr_assert_str_eq(s->hosts[i], want);
        cr_assert_str_eq(s->builds[i], "build-A");
    }
    cr_assert_eq((off_t)scan.valid_bytes, file_size());
    /* Compact: a record is its image plus 16 (header) + 24 + 1 + host bytes. */
    size_t images = 100 + 200 + 300;
    cr_assert_leq((size_t)file_size(), 16 + 16 + 8 + 7 + images + 3 * (16 + 24 + 1 + 5),
                  "journal of 600 image bytes takes %lld bytes", (long long)file_size());
    free(s);
}

Test(journal, nothing_is_durable_before_commit_and_one_commit_writes_a_batch)
{
    rc_err err = {0};
    rc_journal *j = rc_journal_open(path, HASH, 0, "b", &err);
    cr_assert_not_null(j, "%s", err.msg);
    append_three(j, 1);
    cr_assert_eq(rc_journal_uncommitted(j), 3);
    rc_journal_scan scan;
    seen *s = read_all(&scan);
    cr_assert_eq(s->n, 0, "appended but uncommitted records must not be on disk (%d)", s->n);
    free(s);
    cr_assert_eq(rc_journal_commit(j, &err), 0, "%s", err.msg);
    cr_assert_eq(rc_journal_commits(j), 1);
    cr_assert_eq(rc_journal_uncommitted(j), 0);
    s = read_all(&scan);
    cr_assert_eq(s->n, 3);
    free(s);
    /* A commit with nothing new is free. */
    cr_assert_eq(rc_journal_commit(j, &err), 0);
    cr_assert_eq(rc_journal_commits(j), 1);
    rc_journal_close(j);
}

Test(journal, commit_is_due_after_a_batch_or_a_short_time)
{
    rc_err err = {0};
    rc_journal *j = rc_journal_open(path, HASH, 0, "b", &err);
    cr_assert_not_null(j, "%s", err.msg);
    cr_assert(!rc_journal_due(j), "nothing buffered: not due");
    rc_journal_meta m = {.rank = 1};
    rc_journal_append(j, 1, &m, "x", 1);
    cr_assert(!rc_journal_due(j), "one fresh record: not due yet");
    struct timespec ts = {0, (long)(RC_JOURNAL_COMMIT_S * 1.5e9)};
    nanosleep(&ts, NULL);
    cr_assert(rc_journal_due(j), "a record older than %g s is due", RC_JOURNAL_COMMIT_S);
    cr_assert_eq(rc_journal_commit(j, &err), 0);
    for (int i = 0; i < RC_JOURNAL_COMMIT_RECORDS - 1; i++) rc_journal_append(j, 10 + (uint64_t)i, &m, "x", 1);
    cr_assert(!rc_journal_due(j), "%d fresh records: not due", RC_JOURNAL_COMMIT_RECORDS - 1);
    rc_journal_append(j, 9999, &m, "x", 1);
    cr_assert(rc_journal_due(j), "%d records are a batch", RC_JOURNAL_COMMIT_RECORDS);
    cr_assert_eq(rc_journal_commit(j, &err), 0);
    rc_journal_close(j);
    rc_journal_scan scan;
    seen *s = read_all(&scan);
    cr_assert_eq(s->n, RC_JOURNAL_COMMIT_RECORDS + 1);
    free(s);
}

Test(journal, truncated_last_record_is_dropped_and_reported)
{
    write_three();
    off_t full = file_size();
    cr_assert_eq(truncate(path, full - 7), 0);
    rc_journal_scan scan;
    seen *s = read_all(&scan);
    cr_assert_eq(s->n, 2, "records read: %d", s->n);
    cr_assert_gt(scan.dropped_bytes, 0);
    cr_assert_eq(scan.valid_bytes + scan.dropped_bytes, (size_t)(full - 7));
    free(s);
    /* Appending after a torn tail drops it first, so new records are readable,
     * and a new session records the new build. */
    rc_err err = {0};
    rc_journal *j = rc_journal_open(path, HASH, scan.valid_bytes, "build-B", &err);
    cr_assert_not_null(j, "%s", err.msg);
    rc_journal_meta m = {.rank = 9};
    rc_journal_append(j, 999, &m, "zz", 2);
    cr_assert_eq(rc_journal_commit(j, &err), 0, "%s", err.msg);
    rc_journal_close(j);
    s = read_all(&scan);
    cr_assert_eq(s->n, 3, "records after append: %d", s->n);
    cr_assert_eq(s->ids[2], 999);
    cr_assert_str_eq(s->builds[1], "build-A");
    cr_assert_str_eq(s->builds[2], "build-B");
    cr_assert_eq(scan.sessions, 2);
    cr_assert_eq(scan.dropped_bytes, 0);
    free(s);
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
    rc_journal_scan scan;
    seen *s = read_all(&scan);
    cr_assert_eq(s->n, 2, "records read: %d", s->n);
    cr_assert_eq(scan.dropped_bytes, (size_t)(full - (off_t)scan.valid_bytes));
    free(s);
}

Test(journal, a_session_alone_is_not_written)
{
    rc_err err = {0};
    rc_journal *j = rc_journal_open(path, HASH, 0, "b", &err);
    cr_assert_not_null(j);
    off_t header = file_size();
    cr_assert_eq(rc_journal_commit(j, &err), 0);
    rc_journal_close(j);
    cr_assert_eq(file_size(), header, "a run that finished nothing adds nothing");
}

Test(journal, old_format_is_refused_naming_the_converter)
{
    FILE *f = fopen(path, "wb");
    fwrite("RCJRNL01\0\0\0\0\0\0\0\0", 1, 16, f);
    fclose(f);
    rc_err err = {0};
    rc_journal_scan scan;
    seen s = {0};
    cr_assert_eq(rc_journal_read(path, collect, &s, &scan, &err), RC_EXIT_USAGE);
    cr_assert(strstr(err.msg, "rcsim convert") != NULL, "message: %s", err.msg);
}

Test(journal, not_a_journal_is_refused)
{
    FILE *f = fopen(path, "wb");
    fputs("this is not a journal at all", f);
    fclose(f);
    rc_err err = {0};
    rc_journal_scan scan;
    seen s = {0};
    cr_assert_eq(rc_journal_read(path, collect, &s, &scan, &err), RC_EXIT_USAGE);
}

/* One byte flipped inside the second of three records: the damage is in the
 * middle (a whole record follows), so only that record is lost, the third is
 * read, and the span is named by its offset. */
Test(journal, a_flipped_byte_in_the_middle_loses_only_its_record)
{
    write_three();
    off_t full = file_size();
    rc_journal_scan scan;
    seen *s = read_all(&scan);
    cr_assert_eq(s->n, 3);
    free(s);
    /* record 2 starts after the header (16), the session and record 1 */
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    off_t third = full - (off_t)(16 + 24 + 1 + 5 + 300);
    fseek(f, (long)third - 40, SEEK_SET); /* inside the second image */
    int c = fgetc(f);
    fseek(f, (long)third - 40, SEEK_SET);
    fputc(c ^ 0x20, f);
    fclose(f);
    s = read_all(&scan);
    cr_assert_eq(s->n, 2, "records read: %d", s->n);
    cr_assert_eq(s->ids[0], 100);
    cr_assert_eq(s->ids[1], 102, "the record after the damage is read");
    cr_assert_eq(scan.gaps, 1);
    cr_assert_eq(scan.dropped_bytes, 0, "not a torn tail");
    cr_assert_eq(scan.valid_bytes, (size_t)full);
    size_t second = scan.gap_at[0];
    cr_assert_eq(second + scan.gap_len[0], (size_t)third);
    cr_assert_eq(scan.gap_bytes, scan.gap_len[0]);
    free(s);

    /* Repair: the span is kept in a copy named by its offset, the journal holds
     * the other records, and appending goes on after them. */
    rc_err err = {0};
    cr_assert_eq(rc_journal_repair(path, &scan, &err), 0, "%s", err.msg);
    char *cut = rc_journal_cut_path(path, second);
    struct stat st;
    cr_assert_eq(stat(cut, &st), 0, "no copy of the cut span at %s", cut);
    cr_assert_eq((size_t)st.st_size, scan.gap_bytes);
    cr_assert_eq(file_size(), full - (off_t)st.st_size);
    rc_journal *j = rc_journal_open(path, HASH, scan.valid_bytes, "build-B", &err);
    cr_assert_not_null(j, "%s", err.msg);
    rc_journal_meta m = {.rank = 9};
    rc_journal_append(j, 999, &m, "zz", 2);
    cr_assert_eq(rc_journal_commit(j, &err), 0, "%s", err.msg);
    rc_journal_close(j);
    s = read_all(&scan);
    cr_assert_eq(s->n, 3, "records after the repair and an append: %d", s->n);
    cr_assert_eq(s->ids[1], 102);
    cr_assert_eq(s->ids[2], 999);
    cr_assert_eq(scan.gaps, 0);
    cr_assert_eq(scan.dropped_bytes, 0);
    free(s);
    unlink(cut);
    free(cut);
}

/* A torn tail is cut on repair + open, and a copy of it is kept. */
Test(journal, a_torn_tail_is_copied_before_it_is_cut)
{
    write_three();
    off_t full = file_size();
    cr_assert_eq(truncate(path, full - 7), 0);
    rc_journal_scan scan;
    seen *s = read_all(&scan);
    free(s);
    cr_assert_eq(scan.gaps, 0);
    rc_err err = {0};
    cr_assert_eq(rc_journal_repair(path, &scan, &err), 0, "%s", err.msg);
    char *cut = rc_journal_cut_path(path, scan.valid_bytes);
    struct stat st;
    cr_assert_eq(stat(cut, &st), 0, "no copy of the torn tail at %s", cut);
    cr_assert_eq((size_t)st.st_size, scan.dropped_bytes);
    unlink(cut);
    free(cut);
}
