set(RCSIM_LOOPIX_SOURCES src/loopix/net.c)
