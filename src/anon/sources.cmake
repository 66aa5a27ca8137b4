set(RCSIM_ANON_SOURCES src/anon/anonymity.c src/anon/anon_pool.c src/anon/anon_sender.c src/anon/anon_map.c
    src/anon/anon_results.c src/anon/disclosure.c)
