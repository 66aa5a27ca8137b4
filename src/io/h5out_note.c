/* Text attributes added to a closed results file by the runner after the
 * fact (rc_h5out_note): the stopping rule of an adaptive sweep. */
#include "io/h5out_internal.h"

#include <stdio.h>

int rc_h5out_note(const char *path, const char *name, const char *text, rc_err *err)
{
    h5_silence_hdf5();
    hid_t f = h5_open_file(path, H5F_ACC_RDWR);
    if (f < 0) {
        char why[200];
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot open to record %s (%s)", path, name,
                          h5_io_reason(why, sizeof why));
    }
    int rc = h5_attr_str(f, name, text);
    if (H5Fclose(f) < 0) rc = -1;
    if (rc != 0)
        return rc_err_set(err, RC_EXIT_RUNTIME, "%s: cannot write attribute %s", path, name);
    return 0;
}
