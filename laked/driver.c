// SPDX-License-Identifier: GPL-2.0
/* Choosing a device (laked --device=auto) and the common parts of the driver API. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include "driver.h"

static __thread char last_error[256];

const char *lake_driver_last_error(void)
{
	return last_error;
}

void lake_driver_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

void lake_driver_close(struct lake_driver *drv)
{
	if (drv)
		drv->close(drv);
}

/* Usable means what laked needs first: the driver initializes and sees a device. */
static int cuda_usable(struct lake_driver *drv)
{
	const char *name = NULL;
	int count = 0;
	CUresult ret;

	ret = drv->cuInit(0);
	if (!ret)
		ret = drv->cuDeviceGetCount(&count);
	if (ret) {
		drv->cuGetErrorName(ret, &name);
		lake_driver_set_error("cuda: cuInit/cuDeviceGetCount failed: %s (%d)",
				      name ? name : "unknown error", ret);
		return -ENODEV;
	}
	if (count < 1) {
		lake_driver_set_error("cuda: no device");
		return -ENODEV;
	}
	return 0;
}

int lake_driver_open_auto(struct lake_driver **out, const struct lake_host_opts *opts)
{
	char why[sizeof(last_error)];
	struct lake_driver *drv;
	int ret;

	ret = lake_driver_open_cuda(&drv);
	if (!ret) {
		ret = cuda_usable(drv);
		if (!ret) {
			*out = drv;
			return 0;
		}
		lake_driver_close(drv);
	}
	snprintf(why, sizeof(why), "%s", last_error);
	ret = lake_driver_open_host(out, opts);
	if (!ret)
		lake_driver_set_error("%s", why);
	return ret;
}
