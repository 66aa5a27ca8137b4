# The SLURM script generator behind `rcsim slurm` (slurm/slurm_gen.h, slurm/partition.h);
# library rcsim_slurm.
set(RCSIM_SLURM_SOURCES src/slurm/slurm_gen.c src/slurm/partition.c)

# The generator embeds the documented batch templates (slurm/rcsim-sweep.sbatch.in and
# slurm/rcsim-merge.sbatch.in) at configure time; editing one re-runs the configure step.
foreach(tpl sweep merge)
  set(RCSIM_SLURM_TEMPLATE ${CMAKE_SOURCE_DIR}/slurm/rcsim-${tpl}.sbatch.in)
  set(RCSIM_SLURM_TEMPLATE_VAR slurm_${tpl}_template)
  set(RCSIM_SLURM_TEMPLATE_H ${CMAKE_BINARY_DIR}/generated/slurm/${tpl}_template.h)
  set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${RCSIM_SLURM_TEMPLATE})
  include(${CMAKE_SOURCE_DIR}/slurm/embed-template.cmake)
endforeach()
