set(RCSIM_LOOPIX_SOURCES src/loopix/net.c src/loopix/client.c src/loopix/provider.c src/loopix/mix.c
    src/loopix/traffic.c src/loopix/wire.c src/loopix/node.c src/loopix/server.c
    src/loopix/linkmap.c)
