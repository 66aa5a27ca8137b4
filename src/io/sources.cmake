# h5out_*.c: the results file (io/h5out.h), one job per file; h5out_internal.h is what they share.
set(RCSIM_IO_SOURCES src/io/h5out_util.c src/io/h5out_dict.c src/io/h5out_schema.c
    src/io/h5out_write.c src/io/h5out_read.c src/io/h5out_v1.c src/io/h5out_note.c src/io/journal.c src/io/lock.c
    src/io/manifest.c src/io/merge_check.c src/io/json.c src/io/run_out.c)
