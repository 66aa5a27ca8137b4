rcsim_add_unit(net)
