set(RCSIM_ANON_SOURCES src/anon/anonymity.c src/anon/anon_pool.c)
