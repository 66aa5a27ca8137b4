/* Tests of trace/avail: reading good traces, every bad-input case naming
 * file and line, toggles round-tripping through rc_trace_write, name
 * resolution, and the reference traces against docs/spec.md §4 (suite avail_ref:
 * needs the artefact's traces in $RCSIM_DATA_DIR; ctest runs it as unit_avail_traces,
 * skipped without them). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "trace/avail.h"

static char tmpdir[256];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rcsim-test-avail-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(avail, .init = make_tmpdir, .fini = remove_tmpdir);

static const char *tmp_path(const char *name)
{
    static char p[4][512];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", tmpdir, name);
    return p[i];
}

/* Writes raw bytes gzipped (the bad-input cases rc_trace_write refuses). */
static void write_gz(const char *path, const char *text, size_t n)
{
    gzFile g = gzopen(path, "wb");
    cr_assert_not_null(g);
    if (n) cr_assert_eq(gzwrite(g, text, (unsigned)n), (int)n);
    cr_assert_eq(gzclose(g), Z_OK);
}

static void write_raw(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

static char *read_raw(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(*n);
    cr_assert_eq(fread(b, 1, *n, f), *n);
    fclose(f);
    return b;
}

/* Loads text (gzipped into a file) expecting failure; returns the message. */
static const char *load_bad(const char *name, const char *text, size_t min_lines, int *code)
{
    static rc_err err;
    const char *path = tmp_path(name);
    write_gz(path, text, strlen(text));
    rc_err_clear(&err);
    rc_trace *t = rc_trace_load(path, min_lines, &err);
    cr_assert_null(t, "%s loaded but should fail", name);
    *code = err.code;
    return err.msg;
}

static void assert_has(const char *msg, const char *needle)
{
    cr_assert_not_null(strstr(msg, needle), "message \"%s\" lacks \"%s\"", msg, needle);
}

/* Rebuilds a line's '0'/'1' string from its toggles. */
static void line_from_toggles(const rc_trace *t, size_t l, char *out)
{
    bool on;
    size_t n;
    const uint32_t *tg = rc_trace_toggles(t, l, &on, &n);
    uint32_t period = rc_trace_period_s(t), start = 0;
    for (size_t i = 0; i <= n; i++, on = !on) {
        uint32_t end = i < n ? tg[i] : period;
        memset(out + start, on ? '1' : '0', end - start);
        start = end;
    }
    out[period] = '\0';
}

Test(avail, reads_good_file)
{
    const char *lines[] = {"0011", "1110", "0101", "1111"};
    const char *path = tmp_path("good.txt.gz");
    rc_err err = {0};
    cr_assert_eq(rc_trace_write(path, lines, 4, &err), 0, "%s", err.msg);
    rc_trace *t = rc_trace_load(path, 4, &err);
    cr_assert_not_null(t, "%s", err.msg);
    cr_assert_eq(rc_trace_lines(t), 4);
    cr_assert_eq(rc_trace_period_s(t), 4);
    cr_assert_float_eq(rc_trace_online_fraction(t, 0), 0.5, 1e-12);
    cr_assert_float_eq(rc_trace_online_fraction(t, 1), 0.75, 1e-12);
    cr_assert_float_eq(rc_trace_online_fraction(t, 3), 1.0, 1e-12);
    bool on;
    size_t n;
    const uint32_t *tg = rc_trace_toggles(t, 2, &on, &n);
    cr_assert_eq(on, false);
    cr_assert_eq(n, 3);
    cr_assert_eq(tg[0], 1);
    cr_assert_eq(tg[1], 2);
    cr_assert_eq(tg[2], 3);
    rc_trace_toggles(t, 3, &on, &n);
    cr_assert(on);
    cr_assert_eq(n, 0);
    /* online_at follows each character and wraps around the period. */
    for (size_t l = 0; l < 4; l++)
        for (uint64_t s = 0; s < 12; s++)
            cr_assert_eq(rc_trace_online_at(t, l, s), lines[l][s % 4] == '1', "line %zu s %llu",
                         l, (unsigned long long)s);
    cr_assert_eq(rc_trace_online_at(t, 1, 86400ull * 1000000 + 3), false);
    rc_trace_free(t);
}

Test(avail, skips_empty_lines_accepts_crlf_and_missing_final_newline)
{
    const char *path = tmp_path("empty.txt.gz");
    const char *text = "\n\n0011\r\n\n1100\n\n\n1010";
    write_gz(path, text, strlen(text));
    rc_err err = {0};
    rc_trace *t = rc_trace_load(path, 3, &err);
    cr_assert_not_null(t, "%s", err.msg);
    cr_assert_eq(rc_trace_lines(t), 3);
    char buf[8];
    line_from_toggles(t, 0, buf);
    cr_assert_str_eq(buf, "0011");
    line_from_toggles(t, 1, buf);
    cr_assert_str_eq(buf, "1100");
    line_from_toggles(t, 2, buf);
    cr_assert_str_eq(buf, "1010");
    rc_trace_free(t);
}

Test(avail, wrong_line_length_names_file_and_line)
{
    int code;
    const char *msg = load_bad("short.txt.gz", "0011\n\n001\n", 0, &code);
    cr_assert_eq(code, RC_EXIT_USAGE);
    assert_has(msg, "short.txt.gz:3:");
    assert_has(msg, "3 characters, expected 4");
    msg = load_bad("long.txt.gz", "0011\n1100\n00110\n", 0, &code);
    assert_has(msg, "long.txt.gz:3:");
    assert_has(msg, "more than 4 characters");
}

Test(avail, bad_character_names_line_and_column)
{
    int code;
    const char *msg = load_bad("bad.txt.gz", "0011\n0x11\n", 0, &code);
    cr_assert_eq(code, RC_EXIT_USAGE);
    assert_has(msg, "bad.txt.gz:2:");
    assert_has(msg, "'x'");
    assert_has(msg, "column 2");
    msg = load_bad("space.txt.gz", "0011\n1100\n110 \n", 0, &code);
    assert_has(msg, "space.txt.gz:3:");
    assert_has(msg, "column 4");
    msg = load_bad("cr.txt.gz", "01\r1\n", 0, &code);
    assert_has(msg, "cr.txt.gz:1:");
    assert_has(msg, "column 3");
}

Test(avail, too_few_lines)
{
    int code;
    const char *msg = load_bad("few.txt.gz", "01\n10\n11\n", 16, &code);
    cr_assert_eq(code, RC_EXIT_USAGE);
    assert_has(msg, "few.txt.gz has 3 lines, the job needs 16");
    msg = load_bad("none.txt.gz", "\n\n", 0, &code);
    assert_has(msg, "none.txt.gz");
    assert_has(msg, "no lines");
}

/* Random lines compress poorly, so the gzip is long enough to cut. */
static void write_random_trace(const char *path, size_t n_lines, size_t len, unsigned seed)
{
    char **lines = malloc(n_lines * sizeof *lines);
    srand(seed);
    for (size_t l = 0; l < n_lines; l++) {
        lines[l] = malloc(len + 1);
        for (size_t i = 0; i < len; i++) lines[l][i] = (rand() & 1) ? '1' : '0';
        lines[l][len] = '\0';
    }
    rc_err err = {0};
    cr_assert_eq(rc_trace_write(path, (const char *const *)lines, n_lines, &err), 0, "%s",
                 err.msg);
    for (size_t l = 0; l < n_lines; l++) free(lines[l]);
    free(lines);
}

Test(avail, truncated_gzip_is_an_error)
{
    const char *full = tmp_path("full.txt.gz");
    write_random_trace(full, 20, 2000, 7);
    size_t n;
    char *bytes = read_raw(full, &n);
    cr_assert_gt(n, 1000);
    /* Cut in the middle of the deflate data, and also just inside the
     * 8-byte trailer (all data decompresses, the CRC/size are missing). */
    size_t cuts[] = {n / 2, n - 3};
    for (size_t c = 0; c < 2; c++) {
        const char *cut = tmp_path("cut.txt.gz");
        write_raw(cut, bytes, cuts[c]);
        rc_err err = {0};
        rc_trace *t = rc_trace_load(cut, 0, &err);
        cr_assert_null(t, "cut at %zu of %zu loaded", cuts[c], n);
        cr_assert_eq(err.code, RC_EXIT_USAGE);
        assert_has(err.msg, cut);
        assert_has(err.msg, "truncated");
    }
    free(bytes);
}

Test(avail, corrupt_gzip_is_an_error)
{
    const char *full = tmp_path("full.txt.gz");
    write_random_trace(full, 20, 2000, 8);
    size_t n;
    char *bytes = read_raw(full, &n);
    bytes[n - 6] ^= 0x55; /* inside the CRC-32 of the trailer */
    const char *bad = tmp_path("crc.txt.gz");
    write_raw(bad, bytes, n);
    rc_err err = {0};
    cr_assert_null(rc_trace_load(bad, 0, &err));
    assert_has(err.msg, bad);
    assert_has(err.msg, "corrupt");
    free(bytes);
}

Test(avail, plain_text_is_not_gzip)
{
    const char *path = tmp_path("plain.txt");
    write_raw(path, "0101\n1010\n", 10);
    rc_err err = {0};
    cr_assert_null(rc_trace_load(path, 0, &err));
    cr_assert_eq(err.code, RC_EXIT_USAGE);
    assert_has(err.msg, path);
    assert_has(err.msg, "not a gzip file");
}

Test(avail, missing_file)
{
    const char *path = tmp_path("nope.txt.gz");
    rc_err err = {0};
    cr_assert_null(rc_trace_load(path, 0, &err));
    cr_assert_eq(err.code, RC_EXIT_USAGE);
    assert_has(err.msg, path);
    assert_has(err.msg, "No such file");
}

Test(avail, toggles_round_trip)
{
    const char *path = tmp_path("rt.txt.gz");
    enum { L = 30, N = 997 };
    write_random_trace(path, L, N, 11);
    rc_err err = {0};
    rc_trace *t = rc_trace_load(path, L, &err);
    cr_assert_not_null(t, "%s", err.msg);
    /* Regenerate the same lines and compare character for character. */
    srand(11);
    char want[N + 1], got[N + 1];
    for (size_t l = 0; l < L; l++) {
        for (size_t i = 0; i < N; i++) want[i] = (rand() & 1) ? '1' : '0';
        want[N] = '\0';
        line_from_toggles(t, l, got);
        cr_assert_str_eq(got, want, "line %zu", l);
        size_t ones = 0;
        for (size_t i = 0; i < N; i++) ones += want[i] == '1';
        cr_assert_float_eq(rc_trace_online_fraction(t, l), (double)ones / N, 1e-12);
    }
    rc_trace_free(t);
}

Test(avail, parse_from_memory)
{
    rc_err err = {0};
    rc_trace *t = rc_trace_parse("mem", "110\n011\n", 8, 2, &err);
    cr_assert_not_null(t, "%s", err.msg);
    cr_assert_eq(rc_trace_period_s(t), 3);
    cr_assert(rc_trace_online_at(t, 0, 0));
    cr_assert_not(rc_trace_online_at(t, 0, 2));
    rc_trace_free(t);
    cr_assert_null(rc_trace_parse("mem", "110\n01\n", 7, 0, &err));
    assert_has(err.msg, "mem:2:");
}

Test(avail, write_rejects_inconsistent_lines)
{
    const char *bad1[] = {"0101", "010"};
    const char *bad2[] = {"0101", "01a1"};
    rc_err err = {0};
    cr_assert_eq(rc_trace_write(tmp_path("w.gz"), bad1, 2, &err), RC_EXIT_USAGE);
    assert_has(err.msg, "line 2");
    rc_err_clear(&err);
    cr_assert_eq(rc_trace_write(tmp_path("w.gz"), bad2, 2, &err), RC_EXIT_USAGE);
}

Test(avail, resolve_names)
{
    char path[1024];
    rc_err err = {0};
    cr_assert_eq(rc_trace_resolve("online", NULL, path, sizeof path, &err), 0);
    cr_assert_str_eq(path, "");

    const char *lines[] = {"01"};
    const char *full = tmp_path("schedules_gen_zz.txt.gz");
    cr_assert_eq(rc_trace_write(full, lines, 1, &err), 0);
    /* An existing path is used as is. */
    cr_assert_eq(rc_trace_resolve(full, NULL, path, sizeof path, &err), 0);
    cr_assert_str_eq(path, full);
    /* A name is looked up in data_dir with the reference's prefixes. */
    cr_assert_eq(rc_trace_resolve("zz", tmpdir, path, sizeof path, &err), 0, "%s", err.msg);
    cr_assert_str_eq(path, full);
    /* ... and in $RCSIM_DATA_DIR. */
    char *old = getenv("RCSIM_DATA_DIR") ? strdup(getenv("RCSIM_DATA_DIR")) : NULL;
    setenv("RCSIM_DATA_DIR", tmpdir, 1);
    cr_assert_eq(rc_trace_resolve("zz", "", path, sizeof path, &err), 0, "%s", err.msg);
    cr_assert_str_eq(path, full);
    /* Too small a buffer is an error, not a truncated path. */
    char tiny[8];
    cr_assert_eq(rc_trace_resolve("zz", NULL, tiny, sizeof tiny, &err), RC_EXIT_USAGE);
    rc_err_clear(&err);
    cr_assert_eq(rc_trace_resolve("no_such_trace_xyz", "/nonexistent-dir", path, sizeof path,
                                  &err),
                 RC_EXIT_USAGE);
    assert_has(err.msg, "no_such_trace_xyz");
    assert_has(err.msg, "/nonexistent-dir");
    if (old) {
        setenv("RCSIM_DATA_DIR", old, 1);
        free(old);
    } else {
        unsetenv("RCSIM_DATA_DIR");
    }
}

/* ---- The reference traces (docs/spec.md §4) ---------------------------------- */

static rc_trace *load_ref(const char *name)
{
    char path[1024];
    const char *dir = getenv("RCSIM_DATA_DIR");
    snprintf(path, sizeof path, "%s/schedules_gen_%s.txt.gz", dir ? dir : ".", name);
    struct stat st;
    if (dir == NULL || stat(path, &st) != 0)
        cr_skip_test("real traces not found (%s): run scripts/get-traces.sh and set "
                     "RCSIM_DATA_DIR", path);
    rc_err err = {0};
    rc_trace *t = rc_trace_load(path, 16, &err);
    cr_assert_not_null(t, "%s", err.msg);
    return t;
}

Test(avail_ref, table_of_spec_section_4)
{
    static const struct {
        const char *name;
        size_t lines;
        double mean, first16;
    } ref[] = {
        {"os05", 592, 0.370, 0.276}, {"os10", 510, 0.650, 0.642}, {"os15", 546, 0.800, 0.665},
        {"os20", 612, 0.884, 0.859}, {"os25", 689, 0.922, 0.918}, {"os30", 771, 0.928, 0.949},
    };
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        rc_trace *t = load_ref(ref[i].name);
        cr_assert_eq(rc_trace_lines(t), ref[i].lines, "%s", ref[i].name);
        cr_assert_eq(rc_trace_period_s(t), 86400, "%s", ref[i].name);
        double sum = 0, sum16 = 0;
        for (size_t l = 0; l < rc_trace_lines(t); l++) {
            sum += rc_trace_online_fraction(t, l);
            if (l < 16) sum16 += rc_trace_online_fraction(t, l);
        }
        /* The table prints one decimal of a percentage: +-0.05 % plus rounding. */
        cr_assert_float_eq(sum / ref[i].lines, ref[i].mean, 0.0006, "%s mean %.4f", ref[i].name,
                           sum / ref[i].lines);
        cr_assert_float_eq(sum16 / 16, ref[i].first16, 0.0006, "%s first16 %.4f", ref[i].name,
                           sum16 / 16);
        rc_trace_free(t);
    }
}

Test(avail_ref, lines_0_to_15_and_state_at_second_0)
{
    static const struct {
        const char *name;
        double f[16];
        const char *s0;
    } ref[] = {
        {"os10",
         {.466, .956, .942, .474, .550, .450, .950, .936, .607, .492, .610, .341, .482, .611, .920,
          .482},
         "0111111111101110"},
        {"os15",
         {.975, .328, .981, .959, .966, .605, .617, .367, .771, .581, .479, .529, .334, .632, .979,
          .531},
         "1011110111100110"},
        {"os20",
         {.996, .991, .414, .830, .990, .993, .659, .998, .991, .984, .703, .874, .531, .982, .834,
          .977},
         "1001111111111111"},
    };
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        rc_trace *t = load_ref(ref[i].name);
        for (size_t l = 0; l < 16; l++) {
            cr_assert_float_eq(rc_trace_online_fraction(t, l), ref[i].f[l], 0.0005 + 1e-9,
                               "%s line %zu: %.4f vs %.3f", ref[i].name, l,
                               rc_trace_online_fraction(t, l), ref[i].f[l]);
            bool on0;
            rc_trace_toggles(t, l, &on0, NULL);
            cr_assert_eq(on0, ref[i].s0[l] == '1', "%s line %zu state at 0", ref[i].name, l);
            cr_assert_eq(rc_trace_online_at(t, l, 0), on0);
            cr_assert_eq(rc_trace_online_at(t, l, 86400), on0);
        }
        rc_trace_free(t);
    }
}
