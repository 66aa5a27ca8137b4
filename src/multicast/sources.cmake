set(RCSIM_MULTICAST_SOURCES src/multicast/strategy_table.c src/multicast/rollercoaster_name.c
    src/multicast/provider_fanout.c src/multicast/schedule.c src/multicast/mc.c
    src/multicast/groups.c src/multicast/ledger.c src/multicast/bodies.c src/multicast/msg.c src/multicast/hooks.c
    src/multicast/send.c src/multicast/scenario.c
    src/multicast/services.c src/multicast/antientropy.c src/multicast/adversary.c
    src/multicast/population.c src/multicast/poptab.c src/multicast/unicast.c
    src/multicast/rollercoaster.c)
