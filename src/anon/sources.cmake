set(RCSIM_ANON_SOURCES src/anon/anonymity.c)
