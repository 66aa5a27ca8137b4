/* layout_bench: the measurements behind the results layout (docs/results-layout.md,
 * "Why this layout"), with plain HDF5 calls, no rcsim code.
 *
 *   bench_layout table N            compound dataset vs one dataset per column:
 *                                   105 fields, N rows written in blocks of 256
 *   bench_layout hist N SAMPLES     latency histograms of N jobs with SAMPLES
 *                                   log-normal samples each (32770 buckets):
 *                                   dense [job x bucket] 2-D chunks (16 x 1024,
 *                                   only non-empty chunks written) vs sparse
 *                                   (bucket, count) arrays, batches of 1000 jobs
 *
 * Prints master CPU microseconds per row/job and file bytes per row/job.  Files
 * go to /tmp (layout-bench-*.h5) and are removed.
 */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static double cpu_s(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)r.ru_utime.tv_sec + 1e-6 * (double)r.ru_utime.tv_usec +
           (double)r.ru_stime.tv_sec + 1e-6 * (double)r.ru_stime.tv_usec;
}

static long file_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : 0;
}

static hid_t fapl_v110(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110);
    return fapl;
}

static hid_t chunked(hsize_t chunk)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, 1);
    return dcpl;
}

/* Appends `count` elements of `mtype` at `start`. */
static void append(hid_t d, hid_t mtype, hsize_t start, hsize_t count, const void *buf)
{
    hsize_t total = start + count;
    H5Dset_extent(d, &total);
    hid_t fs = H5Dget_space(d);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
    hid_t ms = H5Screate_simple(1, &count, NULL);
    H5Dwrite(d, mtype, ms, fs, H5P_DEFAULT, buf);
    H5Sclose(ms);
    H5Sclose(fs);
}

/* ---- table: 105 fields (45 params, 30 summaries, 27 counters, 3 strings) ---- */

enum { NF = 105, NSTR = 3, STRW = 128 };

static void table_bench(long n)
{
    const int block = 256;
    size_t rowsz = (NF - NSTR) * 8 + NSTR * STRW;
    unsigned char *rows = malloc(rowsz * (size_t)block);
    hid_t strt = H5Tcopy(H5T_C_S1);
    H5Tset_size(strt, STRW);
    hid_t ct = H5Tcreate(H5T_COMPOUND, rowsz);
    char name[32];
    for (int k = 0; k < NF; k++) {
        snprintf(name, sizeof name, "f%d", k);
        if (k < NF - NSTR) H5Tinsert(ct, name, (size_t)k * 8, H5T_NATIVE_DOUBLE);
        else H5Tinsert(ct, name, (size_t)(NF - NSTR) * 8 + (size_t)(k - (NF - NSTR)) * STRW, strt);
    }
    hsize_t zero = 0, unl = H5S_UNLIMITED;
    for (int mode = 0; mode < 2; mode++) {
        const char *path = mode ? "/tmp/layout-bench-columns.h5" : "/tmp/layout-bench-compound.h5";
        hid_t fapl = fapl_v110();
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        H5Pclose(fapl);
        hid_t sp = H5Screate_simple(1, &zero, &unl);
        hid_t dcpl = chunked(4096);
        hid_t ds[NF];
        if (mode == 0) {
            ds[0] = H5Dcreate2(f, "table", ct, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        } else {
            for (int k = 0; k < NF; k++) {
                snprintf(name, sizeof name, "f%d", k);
                ds[k] = H5Dcreate2(f, name, k < NF - NSTR ? H5T_IEEE_F64LE : strt, sp,
                                   H5P_DEFAULT, dcpl, H5P_DEFAULT);
            }
        }
        unsigned char *col = malloc((size_t)block * STRW);
        double t = 0;
        for (long s = 0; s < n; s += block) {
            int b = (int)(n - s < block ? n - s : block);
            for (int i = 0; i < b; i++) {
                double *v = (double *)(void *)(rows + rowsz * (size_t)i);
                for (int k = 0; k < NF - NSTR; k++)
                    v[k] = k < 45 ? (double)(k % 7) : (double)rand() / RAND_MAX * 100;
                for (int k = 0; k < NSTR; k++)
                    snprintf((char *)rows + rowsz * (size_t)i + (NF - NSTR) * 8 + (size_t)k * STRW,
                             STRW, "value-%d-%ld", k, (s + i) % 4);
            }
            double t0 = cpu_s();
            if (mode == 0) {
                append(ds[0], ct, (hsize_t)s, (hsize_t)b, rows);
            } else {
                for (int k = 0; k < NF; k++) {
                    size_t off = k < NF - NSTR ? (size_t)k * 8 : (NF - NSTR) * 8 + (size_t)(k - (NF - NSTR)) * STRW;
                    size_t sz = k < NF - NSTR ? 8 : STRW;
                    for (int i = 0; i < b; i++) memcpy(col + sz * (size_t)i, rows + rowsz * (size_t)i + off, sz);
                    append(ds[k], k < NF - NSTR ? H5T_NATIVE_DOUBLE : strt, (hsize_t)s, (hsize_t)b, col);
                }
            }
            t += cpu_s() - t0;
        }
        for (int k = 0; k < (mode ? NF : 1); k++) H5Dclose(ds[k]);
        H5Pclose(dcpl);
        H5Sclose(sp);
        H5Fclose(f);
        printf("table %s: %ld rows, %.1f us/row to write, %.0f B/row\n",
               mode ? "one dataset per column" : "one compound dataset", n, 1e6 * t / (double)n,
               (double)file_size(path) / (double)n);
        free(col);
        unlink(path);
    }
    H5Tclose(ct);
    H5Tclose(strt);
    free(rows);
}

/* ---- histograms: the layout-2 bucket geometry ---- */

#define SUB 1024
#define NB (2 + 32 * SUB)

static size_t bucket(double x)
{
    if (!(x >= ldexp(1, -10))) return 0;
    if (x >= ldexp(1, 22)) return NB - 1;
    int e;
    frexp(x, &e);
    int k = e - 1;
    return 1 + (size_t)(k + 10) * SUB + ((size_t)ldexp(x, 10 - k) - SUB);
}

static void hist_bench(long n, int samples)
{
    uint32_t **idx = malloc((size_t)n * sizeof *idx), **cnt = malloc((size_t)n * sizeof *cnt);
    int *nn = calloc((size_t)n, sizeof *nn);
    uint32_t *h = calloc(NB, 4);
    srand(1);
    for (long i = 0; i < n; i++) {
        memset(h, 0, NB * 4);
        for (int s = 0; s < samples; s++) {
            double u1 = (rand() + 1.0) / (RAND_MAX + 2.0), u2 = (rand() + 1.0) / (RAND_MAX + 2.0);
            h[bucket(exp(3.0 + 1.2 * sqrt(-2 * log(u1)) * cos(6.283185 * u2)))]++;
        }
        int m = 0;
        for (int b = 0; b < NB; b++) m += h[b] != 0;
        idx[i] = malloc((size_t)m * 4 + 4);
        cnt[i] = malloc((size_t)m * 4 + 4);
        m = 0;
        for (int b = 0; b < NB; b++)
            if (h[b]) idx[i][m] = (uint32_t)b, cnt[i][m++] = h[b];
        nn[i] = m;
    }
    const long batch = 1024; /* a multiple of the dense chunk rows */
    /* dense [job x bucket], chunks 16 x 1024, only non-empty chunks written */
    {
        const char *path = "/tmp/layout-bench-dense.h5";
        const int R = 16, C = 1024, nblk = (NB + C - 1) / C;
        hid_t fapl = fapl_v110();
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        hsize_t d[2] = {0, NB}, mx[2] = {H5S_UNLIMITED, NB}, ch[2] = {(hsize_t)R, (hsize_t)C};
        hid_t sp = H5Screate_simple(2, d, mx);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 2, ch);
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 1);
        unsigned zero = 0;
        H5Pset_fill_value(dcpl, H5T_NATIVE_UINT32, &zero);
        H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_INCR);
        hid_t ds = H5Dcreate2(f, "hist", H5T_STD_U32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        uint32_t *blk = malloc((size_t)R * (size_t)C * 4);
        char *touched = malloc((size_t)nblk);
        double t = 0;
        for (long s0 = 0; s0 < n; s0 += batch) {
            long s1 = s0 + batch < n ? s0 + batch : n;
            double t0 = cpu_s();
            hsize_t n2[2] = {(hsize_t)s1, NB};
            H5Dset_extent(ds, n2);
            hid_t fs = H5Dget_space(ds);
            for (long r0 = s0; r0 < s1;) {
                long rend = (r0 / R + 1) * R;
                if (rend > s1) rend = s1;
                int nr = (int)(rend - r0);
                memset(touched, 0, (size_t)nblk);
                for (long i = r0; i < rend; i++)
                    for (int k = 0; k < nn[i]; k++) touched[idx[i][k] / C] = 1;
                for (int b = 0; b < nblk; b++) {
                    if (!touched[b]) continue;
                    int cw = (b + 1) * C <= NB ? C : NB - b * C;
                    memset(blk, 0, (size_t)nr * (size_t)cw * 4);
                    for (long i = r0; i < rend; i++)
                        for (int k = 0; k < nn[i]; k++)
                            if (idx[i][k] / C == (uint32_t)b)
                                blk[(i - r0) * cw + (long)(idx[i][k] - (uint32_t)(b * C))] = cnt[i][k];
                    hsize_t st[2] = {(hsize_t)r0, (hsize_t)b * C}, ct[2] = {(hsize_t)nr, (hsize_t)cw};
                    H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, ct, NULL);
                    hid_t ms = H5Screate_simple(2, ct, NULL);
                    H5Dwrite(ds, H5T_NATIVE_UINT32, ms, fs, H5P_DEFAULT, blk);
                    H5Sclose(ms);
                }
                r0 = rend;
            }
            H5Sclose(fs);
            t += cpu_s() - t0;
        }
        H5Dclose(ds);
        H5Pclose(dcpl);
        H5Sclose(sp);
        H5Fclose(f);
        H5Pclose(fapl);
        printf("hist dense [job x bucket] (%d samples/job): %.1f us/job to write, %.0f B/job\n",
               samples, 1e6 * t / (double)n, (double)file_size(path) / (double)n);
        unlink(path);
        free(blk);
        free(touched);
    }
    /* sparse (bucket, count) arrays + end offsets */
    {
        const char *path = "/tmp/layout-bench-sparse.h5";
        hid_t fapl = fapl_v110();
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        hsize_t zero = 0, unl = H5S_UNLIMITED;
        hid_t sp = H5Screate_simple(1, &zero, &unl);
        hid_t p1 = chunked(4096), p2 = chunked(65536);
        hid_t de = H5Dcreate2(f, "end", H5T_STD_U64LE, sp, H5P_DEFAULT, p1, H5P_DEFAULT);
        hid_t db = H5Dcreate2(f, "bucket", H5T_STD_U16LE, sp, H5P_DEFAULT, p2, H5P_DEFAULT);
        hid_t dc = H5Dcreate2(f, "count", H5T_STD_U32LE, sp, H5P_DEFAULT, p2, H5P_DEFAULT);
        uint16_t *bb = malloc(((size_t)samples + 1) * (size_t)batch * 2);
        uint32_t *cc = malloc(((size_t)samples + 1) * (size_t)batch * 4);
        uint64_t *ee = malloc((size_t)batch * 8), total = 0;
        double t = 0;
        for (long s0 = 0; s0 < n; s0 += batch) {
            long s1 = s0 + batch < n ? s0 + batch : n;
            double t0 = cpu_s();
            size_t m = 0;
            uint64_t start = total;
            for (long i = s0; i < s1; i++) {
                for (int k = 0; k < nn[i]; k++) bb[m + (size_t)k] = (uint16_t)idx[i][k];
                memcpy(cc + m, cnt[i], (size_t)nn[i] * 4);
                m += (size_t)nn[i];
                total += (uint64_t)nn[i];
                ee[i - s0] = total;
            }
            append(de, H5T_NATIVE_UINT64, (hsize_t)s0, (hsize_t)(s1 - s0), ee);
            append(db, H5T_NATIVE_UINT16, start, m, bb);
            append(dc, H5T_NATIVE_UINT32, start, m, cc);
            t += cpu_s() - t0;
        }
        H5Dclose(de);
        H5Dclose(db);
        H5Dclose(dc);
        H5Pclose(p1);
        H5Pclose(p2);
        H5Sclose(sp);
        H5Fclose(f);
        H5Pclose(fapl);
        printf("hist sparse (bucket, count) (%d samples/job): %.1f us/job to write, %.0f B/job\n",
               samples, 1e6 * t / (double)n, (double)file_size(path) / (double)n);
        unlink(path);
        free(bb);
        free(cc);
        free(ee);
    }
    for (long i = 0; i < n; i++) {
        free(idx[i]);
        free(cnt[i]);
    }
    free(idx);
    free(cnt);
    free(nn);
    free(h);
}

int main(int argc, char **argv)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (argc >= 3 && strcmp(argv[1], "table") == 0) {
        table_bench(atol(argv[2]));
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "hist") == 0) {
        hist_bench(atol(argv[2]), atoi(argv[3]));
        return 0;
    }
    fprintf(stderr, "usage: bench_layout table N | bench_layout hist N SAMPLES\n");
    return 2;
}
