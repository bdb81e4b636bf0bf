/* tevsuite's defaults, each defined once: the C and C++ headers, the library, every command and
 * the Python package read them from here. A C header: plain macros, no other include. */
#ifndef TEVSUITE_DEFAULTS_H
#define TEVSUITE_DEFAULTS_H

/* The family-wise false-alarm level of a whole check, run or sweep (the verdict policy splits
 * it). */
#define TEV_DEFAULT_ALPHA 1e-3

/* The seed every command, experiment and library check starts from unless told otherwise. */
#define TEV_DEFAULT_SEED 20261130u

/* The seed of the identity tests' null simulations (Monte Carlo p-values) where a verdict policy
 * is not given the run's own seed. */
#define TEV_NULL_SIMULATION_SEED 20261201u

#endif /* TEVSUITE_DEFAULTS_H */
