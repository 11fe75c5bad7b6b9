/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAKE_CU_ERRORS_H
#define LAKE_CU_ERRORS_H

#include <lake/port.h>
#include <lake/cuda.h>

/*
 * *@str = the name (@name) or the description of @error. As the real
 * driver: an unknown code gives CUDA_ERROR_INVALID_VALUE and *@str = NULL.
 */
CUresult lake_cu_error_str(CUresult error, const char **str, bool name);

#endif /* LAKE_CU_ERRORS_H */
