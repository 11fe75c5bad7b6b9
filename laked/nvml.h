/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GPU contention for the CPU-fallback policy, read from NVML
 * (libnvidia-ml.so.1, loaded with dlopen like libcuda). Optional: without
 * NVML the CUDA driver's load hook reports no utilization or process count.
 */
#ifndef LAKED_NVML_H
#define LAKED_NVML_H

#include "driver.h"

struct lake_nvml;

/* @lib: library to load (tests); NULL for libnvidia-ml.so.1. 0 or -errno. */
int lake_nvml_open(struct lake_nvml **out, const char *lib, unsigned int index);
/* Fills util_percent and foreign_procs and sets their flags when NVML answers. */
void lake_nvml_sample(struct lake_nvml *nv, struct lake_device_load *out);
void lake_nvml_close(struct lake_nvml *nv);

#endif /* LAKED_NVML_H */
