# Availability traces: reading (avail) and statistics/synthesis (synth).  Below the network,
# which reads them; nothing here knows of clients or groups.
set(RCSIM_TRACE_SOURCES src/trace/avail.c src/trace/synth.c src/trace/trace_id.c)
