/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The debugfs command file of the guest's test modules: the shell writes
 * one command, the module runs it (under ctl_lock) and writes its answer
 * with ctl_say(), and the shell reads the answer back. A module defines
 * ctl_command() and calls ctl_create() / ctl_remove() at load and unload.
 * An answer longer than CTL_OUT_MAX ends with a failing result line instead
 * of losing its tail silently.
 */
#ifndef LAKE_SELFTEST_CTL_H
#define LAKE_SELFTEST_CTL_H

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <lake/shm.h>

#ifndef CTL_OUT_MAX
#define CTL_OUT_MAX	16384
#endif
#define CTL_CMD_MAX	128
#define CTL_TAIL	128	/* kept for the line saying the answer was cut */

static DEFINE_MUTEX(ctl_lock);
static char *ctl_out;
static size_t ctl_out_len;
static size_t ctl_lost;		/* bytes of this answer that did not fit */
static const char *ctl_name;
static struct dentry *ctl_file;

/* The module's: run one command (trimmed, NUL-terminated) under ctl_lock. */
static void ctl_command(char *cmd);

/* Once a piece does not fit, the rest is dropped too: no half lines. */
static __printf(1, 2) void ctl_say(const char *fmt, ...)
{
	size_t room = CTL_OUT_MAX - CTL_TAIL - ctl_out_len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(ctl_out + ctl_out_len, room, fmt, ap);
	va_end(ap);
	if (!ctl_lost && n >= 0 && (size_t)n < room) {
		ctl_out_len += n;
		return;
	}
	ctl_out[ctl_out_len] = '\0';
	ctl_lost += max(n, 1);
}

static ssize_t ctl_write(struct file *f, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char cmd[CTL_CMD_MAX];

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	mutex_lock(&ctl_lock);
	ctl_out_len = 0;
	ctl_out[0] = '\0';
	ctl_lost = 0;
	ctl_command(strim(cmd));
	if (ctl_lost)
		ctl_out_len += scnprintf(ctl_out + ctl_out_len, CTL_OUT_MAX - ctl_out_len,
					 "not ok - %s: answer cut, %zu bytes did not fit in CTL_OUT_MAX %d\n",
					 ctl_name, ctl_lost, CTL_OUT_MAX);
	mutex_unlock(&ctl_lock);
	return len;
}

static ssize_t ctl_read(struct file *f, char __user *ubuf, size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&ctl_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, ctl_out, ctl_out_len);
	mutex_unlock(&ctl_lock);
	return ret;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.read = ctl_read,
	.write = ctl_write,
	.llseek = default_llseek,
};

/* debugfs lake/@name. */
static int ctl_create(const char *name)
{
	ctl_out = kzalloc(CTL_OUT_MAX, GFP_KERNEL);
	if (!ctl_out)
		return -ENOMEM;
	ctl_name = name;
	ctl_file = debugfs_create_file(name, 0600, lake_debugfs_dir(), NULL, &ctl_fops);
	return 0;
}

static void ctl_remove(void)
{
	debugfs_remove(ctl_file);
	kfree(ctl_out);
}

#endif /* LAKE_SELFTEST_CTL_H */
