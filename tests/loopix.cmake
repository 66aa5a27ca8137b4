rcsim_add_unit(net)
rcsim_add_unit(cover TIMEOUT 900)
