// SPDX-License-Identifier: GPL-2.0
/* The one place lakelib's tracepoints (trace.h) are instantiated. */
#define CREATE_TRACE_POINTS
#include "trace.h"
