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

#define TIMEOUT_MS_MAX	600000

unsigned int lake_timeout_ms = 10000;

/* Checked on every write, at load or at run time: 0 would fail every call. */
static int timeout_ms_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int ret = kstrtouint(val, 0, &ms);

	if (ret)
		return ret;
	if (!ms || ms > TIMEOUT_MS_MAX) {
		pr_warn("timeout_ms %u refused: 1..%u\n", ms, TIMEOUT_MS_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(lake_timeout_ms, ms);
	return 0;
}

static const struct kernel_param_ops timeout_ms_ops = {
	.set = timeout_ms_set,
	.get = param_get_uint,
};
module_param_cb(timeout_ms, &timeout_ms_ops, &lake_timeout_ms, 0644);
MODULE_PARM_DESC(timeout_ms, "How long one API call may wait for laked (ms, 1..600000)");

static int __init lakelib_init(void)
{
	int ret;

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
	lake_ring_exit();
	lake_features_exit();
	lake_fallback_exit();
	lake_stats_exit();
	lake_rpc_exit();
	lake_stage_exit();
	lake_funcs_reset();
	lake_ctx_reset();
}

module_init(lakelib_init);
module_exit(lakelib_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: CUDA Driver API for kernel modules, served by laked");
