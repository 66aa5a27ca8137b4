/* HDF5 helpers shared by the results-file code: attributes, extendible 1-D datasets,
 * file access; each returns 0 or -1 (the caller words the error). */
#include "io/h5out_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"

hid_t h5_vlen_str_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

static int attr_write(hid_t loc, const char *name, hid_t type, hid_t space, const void *buf)
{
    if (H5Aexists(loc, name) > 0 && H5Adelete(loc, name) < 0) return -1;
    hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) return -1;
    herr_t st = H5Awrite(a, type, buf);
    H5Aclose(a);
    return st < 0 ? -1 : 0;
}

static int attr_scalar(hid_t loc, const char *name, hid_t type, const void *v)
{
    hid_t s = H5Screate(H5S_SCALAR);
    int rc = attr_write(loc, name, type, s, v);
    H5Sclose(s);
    return rc;
}

/* Variable-length UTF-8 strings: h5py reads them as str, and their bytes live
 * in the global heap, so a long sweep text does not hit the 64 kB limit of
 * compact attribute storage. */
int h5_attr_str(hid_t loc, const char *name, const char *value)
{
    hid_t t = h5_vlen_str_type();
    const char *p = value != NULL ? value : "";
    int rc = attr_scalar(loc, name, t, &p);
    H5Tclose(t);
    return rc;
}

int h5_attr_strs(hid_t loc, const char *name, char *const *values, size_t n)
{
    hid_t t = h5_vlen_str_type();
    hsize_t dim = n;
    hid_t s = H5Screate_simple(1, &dim, NULL);
    int rc = attr_write(loc, name, t, s, values);
    H5Sclose(s);
    H5Tclose(t);
    return rc;
}

int h5_attr_i64(hid_t loc, const char *name, int64_t v)
{
    return attr_scalar(loc, name, H5T_NATIVE_INT64, &v);
}
int h5_attr_u64(hid_t loc, const char *name, uint64_t v)
{
    return attr_scalar(loc, name, H5T_NATIVE_UINT64, &v);
}
int h5_attr_f64(hid_t loc, const char *name, double v)
{
    return attr_scalar(loc, name, H5T_NATIVE_DOUBLE, &v);
}
int h5_attr_u8(hid_t loc, const char *name, uint8_t v)
{
    return attr_scalar(loc, name, H5T_NATIVE_UINT8, &v);
}

/* Reads a string attribute of any string type into buf; -1 if absent or not a string. */
int h5_attr_read_str(hid_t loc, const char *name, char *buf, size_t n)
{
    buf[0] = '\0';
    if (H5Aexists(loc, name) <= 0) return -1;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t ft = H5Aget_type(a);
    int rc = -1;
    if (H5Tget_class(ft) == H5T_STRING) {
        if (H5Tis_variable_str(ft) > 0) {
            hid_t mt = h5_vlen_str_type();
            H5Tset_cset(mt, H5Tget_cset(ft)); /* HDF5 converts no cset into another */
            char *p = NULL;
            if (H5Aread(a, mt, &p) >= 0 && p != NULL) {
                snprintf(buf, n, "%s", p);
                H5free_memory(p);
                rc = 0;
            }
            H5Tclose(mt);
        } else {
            size_t sz = H5Tget_size(ft);
            char *tmp = calloc(1, sz + 1);
            if (tmp != NULL && H5Aread(a, ft, tmp) >= 0) {
                snprintf(buf, n, "%s", tmp);
                rc = 0;
            }
            free(tmp);
        }
    }
    H5Tclose(ft);
    H5Aclose(a);
    return rc;
}

/* A string attribute of any length, malloc'ed ("" if absent). */
char *h5_attr_read_str_dup(hid_t loc, const char *name)
{
    if (H5Aexists(loc, name) <= 0) return rc_xstrdup("");
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t ft = a >= 0 ? H5Aget_type(a) : -1;
    char *out = NULL;
    if (ft >= 0 && H5Tget_class(ft) == H5T_STRING) {
        if (H5Tis_variable_str(ft) > 0) {
            hid_t mt = h5_vlen_str_type();
            H5Tset_cset(mt, H5Tget_cset(ft));
            char *p = NULL;
            if (H5Aread(a, mt, &p) >= 0 && p != NULL) {
                out = rc_xstrdup(p);
                H5free_memory(p);
            }
            H5Tclose(mt);
        } else {
            size_t sz = H5Tget_size(ft);
            out = rc_xcalloc(1, sz + 1);
            if (H5Aread(a, ft, out) < 0) out[0] = '\0';
        }
    }
    if (ft >= 0) H5Tclose(ft);
    if (a >= 0) H5Aclose(a);
    return out != NULL ? out : rc_xstrdup("");
}

int h5_attr_read_u64(hid_t loc, const char *name, uint64_t *v)
{
    if (H5Aexists(loc, name) <= 0) return -1;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return -1;
    herr_t st = H5Aread(a, H5T_NATIVE_UINT64, v);
    H5Aclose(a);
    return st < 0 ? -1 : 0;
}

int h5_attr_read_f64(hid_t loc, const char *name, double *v)
{
    if (H5Aexists(loc, name) <= 0) return -1;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return -1;
    herr_t st = H5Aread(a, H5T_NATIVE_DOUBLE, v);
    H5Aclose(a);
    return st < 0 ? -1 : 0;
}

void h5_utc_text(double t, char out[32])
{
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

double h5_now_unix(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void h5_silence_hdf5(void)
{
    /* No library teardown at exit (must precede the first HDF5 call, so it
     * comes first here).  HDF5 1.10.8 leaves a half-destroyed file object in
     * its ID table when H5Fclose fails to flush (e.g. "No space left on
     * device"), and H5_term_library then segfaults on it in H5F__close_cb
     * (HDFFV-11052, fixed upstream after 1.10.8).  We close every file
     * ourselves, so the atexit teardown only frees memory. */
    H5dont_atexit();
    /* Our messages name the file and what failed; HDF5's stack dumps would
     * bury them.  Set once per process (the setting is global). */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* ": No space left on device" (or another storage failure) when the HDF5
 * call that just failed left one in errno, else "".  Only errnos that mean
 * the storage failed: the library's own probing (stat of a missing file)
 * leaves others behind that would mislead.  Callers zero errno first. */
const char *h5_io_reason(char *buf, size_t len)
{
    int e = errno;
    buf[0] = '\0';
    if (e == ENOSPC || e == EDQUOT || e == EIO || e == EROFS || e == EFBIG)
        snprintf(buf, len, ": %s", strerror(e));
    return buf;
}

/* Files are written in the HDF5 1.10 format: its extensible-array chunk
 * index makes appending to a column of a million rows O(1). */
hid_t h5_file_access(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110);
    return fapl;
}

hid_t h5_open_file(const char *path, unsigned flags)
{
    hid_t fapl = h5_file_access();
    hid_t f = H5Fopen(path, flags, fapl);
    H5Pclose(fapl);
    return f;
}

/* An empty extendible 1-D dataset, chunked and compressed, with a fill
 * value (so a column added to an existing file reads as "absent"). */
int h5_create_column_ds(hid_t loc, const char *name, hid_t ftype, hsize_t chunk, bool shuffle,
                        const void *fill, hid_t fill_type, const char *units)
{
    hsize_t zero = 0, unl = H5S_UNLIMITED;
    hid_t space = H5Screate_simple(1, &zero, &unl);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    if (shuffle) H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, DEFLATE_LEVEL);
    if (fill != NULL) H5Pset_fill_value(dcpl, fill_type, fill);
    hid_t d = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int rc = d < 0 ? -1 : 0;
    if (rc == 0 && units != NULL) rc = h5_attr_str(d, "units", units);
    if (d >= 0) H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    return rc;
}

int64_t h5_ds_length(hid_t d)
{
    hid_t s = H5Dget_space(d);
    if (s < 0) return -1;
    hsize_t n = 0;
    int rank = H5Sget_simple_extent_ndims(s);
    if (rank == 1) H5Sget_simple_extent_dims(s, &n, NULL);
    H5Sclose(s);
    return rank == 1 ? (int64_t)n : -1;
}

/* Writes buf[0..count) at [start, start+count), setting the extent to exactly
 * start+count (a retried flush overwrites what a failed one left). */
int h5_ds_put(hid_t d, hid_t mtype, hsize_t start, hsize_t count, const void *buf)
{
    hsize_t total = start + count;
    if (H5Dset_extent(d, &total) < 0) return -1;
    if (count == 0) return 0;
    hid_t fs = H5Dget_space(d);
    if (fs < 0) return -1;
    int rc = H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ? -1 : 0;
    hid_t ms = H5Screate_simple(1, &count, NULL);
    if (rc == 0 && H5Dwrite(d, mtype, ms, fs, H5P_DEFAULT, buf) < 0) rc = -1;
    H5Sclose(ms);
    H5Sclose(fs);
    return rc;
}

/* Reads [start, start+count) into a malloc'ed buffer of elements of `esize`. */
void *h5_ds_get(hid_t d, hid_t mtype, size_t esize, hsize_t start, hsize_t count)
{
    void *buf = rc_xmalloc(count ? count * esize : 1);
    if (count == 0) return buf;
    hid_t fs = H5Dget_space(d);
    int bad = fs < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0;
    hid_t ms = H5Screate_simple(1, &count, NULL);
    if (!bad && H5Dread(d, mtype, ms, fs, H5P_DEFAULT, buf) < 0) bad = 1;
    H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    if (bad) {
        free(buf);
        return NULL;
    }
    return buf;
}

int h5_delete_if_exists(hid_t loc, const char *name)
{
    htri_t e = H5Lexists(loc, name, H5P_DEFAULT);
    if (e < 0) return -1;
    if (e > 0 && H5Ldelete(loc, name, H5P_DEFAULT) < 0) return -1;
    return 0;
}
