set(RCSIM_IO_SOURCES src/io/h5out.c src/io/journal.c src/io/lock.c src/io/manifest.c
    src/io/json.c)
