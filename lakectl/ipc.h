/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lakectl's netlink layer: requests to the "lake" genl family and the
 * attributes of each answer, validated against the family's policies.
 */
#ifndef LAKECTL_IPC_H
#define LAKECTL_IPC_H

#include <stdbool.h>
#include <stdint.h>
#include <netlink/attr.h>
#include <uapi/lake/genl.h>

struct ctl;

/* 0, -ENOENT when there is no "lake" family (lakelib not loaded), or -errno. */
int ctl_open(struct ctl **out);
void ctl_close(struct ctl *c);

/*
 * Called for each answer message with its top-level attributes, validated
 * (@tb: the last of each type), and all of them (@attrs, @len) for the
 * repeated ones; 0 or -errno.
 */
typedef int (*ctl_msg_fn)(struct nlattr **tb, struct nlattr *attrs, int len, void *arg);
/* Fills the request's attributes; 0 or -EMSGSIZE. */
typedef int (*ctl_fill_fn)(struct nl_msg *msg, void *arg);

/*
 * Send @cmd (a dump when @dump), with attributes from @fill (may be NULL),
 * and hand each answer to @fn (may be NULL: only the ack counts). 0, or the
 * kernel's -errno (-EPERM, -ENOENT, -EINVAL, ...).
 */
int ctl_request(struct ctl *c, uint8_t cmd, bool dump, ctl_fill_fn fill, void *fill_arg,
		ctl_msg_fn fn, void *arg);

/* Nested attributes of @nest, validated; 0 or -EINVAL. */
int ctl_parse_policy(struct nlattr *nest, struct nlattr **tb);
int ctl_parse_registry(struct nlattr *nest, struct nlattr **tb);
int ctl_parse_feature(struct nlattr *nest, struct nlattr **tb);
/* A named counter: its name and value; -EINVAL when malformed. */
int ctl_parse_ctr(struct nlattr *nest, const char **name, uint64_t *value);

#endif /* LAKECTL_IPC_H */
