/* cost: the cost model of a job, fitted to measured wall times (src/exp/cost.c
 * says how and to what). */
#ifndef RCSIM_EXP_COST_H
#define RCSIM_EXP_COST_H

#include "exp/job.h"

/* Relative cost estimate of a job (roughly: seconds on one core), used to
 * hand out expensive jobs first and to print `rcsim plan` estimates. */
double rc_job_cost_estimate(const rc_job *job);

#endif
