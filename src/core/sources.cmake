set(RCSIM_CORE_SOURCES src/core/err.c src/core/log.c src/core/evq.c src/core/calq.c src/core/rng.c src/core/sim.c src/core/pyrandom.c src/core/hist.c
    src/core/fdio.c src/core/vec.c src/core/shquote.c)
