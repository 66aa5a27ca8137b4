# io: the HDF5 results writer and the resume journal.
rcsim_add_unit(journal LIBS rcsim_io TIMEOUT 60)
rcsim_add_unit(h5out LIBS rcsim_io TIMEOUT 60)
# The results lock and the manifest.
rcsim_add_unit(lock LIBS rcsim_io TIMEOUT 60)
rcsim_add_unit(manifest LIBS rcsim_io TIMEOUT 60)
