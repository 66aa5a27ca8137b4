rcsim_add_unit(evq)
rcsim_add_unit(calq)
rcsim_add_unit(rng)
rcsim_add_unit(param)
