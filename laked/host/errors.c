// SPDX-License-Identifier: GPL-2.0
/* cuGetErrorName and cuGetErrorString, from the table lakelib shares. */
#include "host.h"
#include <lake/cu_errors.h>

CUresult hd_cuGetErrorName(CUresult error, const char **str)
{
	return lake_cu_error_str(error, str, true);
}

CUresult hd_cuGetErrorString(CUresult error, const char **str)
{
	return lake_cu_error_str(error, str, false);
}
