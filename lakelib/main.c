// SPDX-License-Identifier: GPL-2.0
/*
 * lakelib: the CUDA Driver API for kernel modules, executed by laked.
 *
 * Load after lakeshm; then start laked. Until laked registers, every call
 * fails at once with CUDA_ERROR_NO_DEVICE; nothing ever waits for a daemon
 * that is not there.
 */
#define pr_fmt(fmt) "lakelib: " fmt

#include <linux/module.h>
#include "lakelib.h"

unsigned int lake_timeout_ms = 10000;
module_param_named(timeout_ms, lake_timeout_ms, uint, 0644);
MODULE_PARM_DESC(timeout_ms, "How long a synchronous call waits for laked (ms, default 10000)");

static int __init lakelib_init(void)
{
	int ret;

	if (!lake_timeout_ms) {
		pr_err("timeout_ms must be positive\n");
		return -EINVAL;
	}
	ret = lake_rpc_init();
	if (ret)
		return ret;
	ret = lake_stats_init();
	if (ret)
		goto err_rpc;
	lake_fallback_init();
	lake_features_init();
	ret = lake_nl_init();
	if (ret)
		goto err_glue;
	pr_info("ready; waiting for laked on genl family \"%s\"\n", LAKE_GENL_NAME);
	return 0;

err_glue:
	lake_features_exit();
	lake_fallback_exit();
	lake_stats_exit();
err_rpc:
	lake_rpc_exit();
	return ret;
}

static void __exit lakelib_exit(void)
{
	lake_nl_exit();
	lake_features_exit();
	lake_fallback_exit();
	lake_stats_exit();
	lake_rpc_exit();
	lake_funcs_reset();
	lake_ctx_reset();
}

module_init(lakelib_init);
module_exit(lakelib_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: CUDA Driver API for kernel modules, served by laked");
