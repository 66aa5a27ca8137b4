rcsim_add_unit(net)
rcsim_add_unit(cover TIMEOUT 900)
rcsim_add_unit(traffic TIMEOUT 300)
