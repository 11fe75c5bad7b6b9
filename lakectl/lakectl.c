// SPDX-License-Identifier: GPL-2.0
/*
 * lakectl: lakelib's state over the "lake" genl family, for people (text)
 * and scripts (--json, and the exit codes below). Reading is open to any
 * user; `policy NAME mode|crossover` needs CAP_NET_ADMIN.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ipc.h"

enum {
	EXIT_OK = 0,
	EXIT_ERROR = 1,		/* netlink failed, or the kernel refused the value */
	EXIT_USAGE = 2,
	EXIT_NO_LAKELIB = 3,	/* no "lake" family: lakelib is not loaded */
	EXIT_PERM = 4,		/* a change, without CAP_NET_ADMIN */
	EXIT_NOT_FOUND = 5,	/* no such policy or registry */
	EXIT_NO_DAEMON = 6,	/* status: lakelib is loaded, no laked registered */
};

static const char usage[] =
	"usage: lakectl [--json] COMMAND\n"
	"Show and set the state of lakelib.ko (see lakectl(8)).\n\n"
	"  status                        laked, its device, the region, calls in flight\n"
	"  stats                         lakelib's counters and calls per API\n"
	"  policy [NAME]                 CPU-fallback policies: mode, crossover, decisions\n"
	"  policy NAME mode auto|cpu|gpu force a policy's side, or let it decide (root)\n"
	"  policy NAME crossover N|calibrated\n"
	"                                GPU from batch N, or the calibrated value (root)\n"
	"  registry [NAME]               feature registries: schema, fill, drops\n\n"
	"  -j, --json                    JSON on stdout instead of text\n"
	"  -h, --help                    this text\n\n"
	"exit status: 0 ok, 1 error, 2 usage, 3 lakelib not loaded, 4 permission denied,\n"
	"5 no such policy or registry, 6 (status) no laked registered\n";

static const char *const mode_names[] = { "auto", "cpu", "gpu" };

static bool json;

/* A JSON string: quotes, backslashes and control bytes escaped. */
static void jstr(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static uint64_t get_u64(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u64(tb[type]) : 0;
}

static uint32_t get_u32(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u32(tb[type]) : 0;
}

/* --- status --------------------------------------------------------------- */

static int show_status(struct nlattr **tb, struct nlattr *attrs, int len, void *arg)
{
	bool up = tb[LAKE_A_PORTID] && nla_get_u32(tb[LAKE_A_PORTID]);
	const char *dev = tb[LAKE_A_DEVICE] ? nla_get_string(tb[LAKE_A_DEVICE]) : "";
	uint64_t size = get_u64(tb, LAKE_A_REGION_SIZE), used = get_u64(tb, LAKE_A_REGION_USED);
	const char *transport = get_u32(tb, LAKE_A_TRANSPORT) == LAKE_GENL_TRANSPORT_RING ?
				"ring" : "genl";

	(void)attrs;
	(void)len;
	*(bool *)arg = up;
	if (json) {
		printf("{\"daemon\":{\"registered\":%s", up ? "true" : "false");
		if (up) {
			printf(",\"pid\":%" PRIu32 ",\"portid\":%" PRIu32 ",\"device\":",
			       get_u32(tb, LAKE_A_PID), get_u32(tb, LAKE_A_PORTID));
			jstr(dev);
			printf(",\"device_kind\":");
			jstr(strncmp(dev, "cuda", 4) ? dev : "cuda");
		}
		printf("},\"region\":");
		if (tb[LAKE_A_REGION_SIZE])
			printf("{\"size\":%" PRIu64 ",\"used\":%" PRIu64 "}", size, used);
		else
			printf("null");
		printf(",\"transport\":\"%s\",\"in_flight\":%" PRIu64 ",\"timeout_ms\":%" PRIu32 "}\n",
		       transport, get_u64(tb, LAKE_A_IN_FLIGHT), get_u32(tb, LAKE_A_TIMEOUT_MS));
		return 0;
	}
	if (up)
		printf("laked:     registered, pid %" PRIu32 " (portid %" PRIu32 ")\n"
		       "device:    %s\n", get_u32(tb, LAKE_A_PID), get_u32(tb, LAKE_A_PORTID), dev);
	else
		printf("laked:     not registered: calls fail with CUDA_ERROR_NO_DEVICE\n");
	if (tb[LAKE_A_REGION_SIZE])
		printf("region:    %" PRIu64 " KiB, %" PRIu64 " KiB used (%.1f%%)\n", size >> 10,
		       used >> 10, size ? 100.0 * (double)used / (double)size : 0.0);
	else
		printf("region:    none\n");
	printf("transport: %s\n", transport);
	printf("in flight: %" PRIu64 " calls\ntimeout:   %" PRIu32 " ms\n",
	       get_u64(tb, LAKE_A_IN_FLIGHT), get_u32(tb, LAKE_A_TIMEOUT_MS));
	return 0;
}

/* --- stats ---------------------------------------------------------------- */

/* The repeated counters of type @type in @attrs, as "key": value or lines. */
static int show_ctrs(struct nlattr *attrs, int len, int type, bool skip_zero)
{
	const char *name;
	struct nlattr *a;
	uint64_t v;
	bool first = true;
	int rem;

	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) != type)
			continue;
		if (ctl_parse_ctr(a, &name, &v))
			return -EBADMSG;
		if (json) {
			printf("%s", first ? "" : ",");
			jstr(name);
			printf(":%" PRIu64, v);
		} else if (v || !skip_zero) {
			printf("  %-24s %" PRIu64 "\n", name, v);
		}
		first = false;
	}
	return 0;
}

static int show_stats(struct nlattr **tb, struct nlattr *attrs, int len, void *arg)
{
	int ret;

	(void)tb;
	(void)arg;
	if (json) {
		printf("{\"counters\":{");
		ret = show_ctrs(attrs, len, LAKE_A_STAT, false);
		printf("},\"calls\":{");
		if (!ret)
			ret = show_ctrs(attrs, len, LAKE_A_API_CALLS, false);
		printf("},\"errors\":{");
		if (!ret)
			ret = show_ctrs(attrs, len, LAKE_A_API_ERRORS, false);
		printf("}}\n");
		return ret;
	}
	printf("counters:\n");
	ret = show_ctrs(attrs, len, LAKE_A_STAT, false);
	printf("calls (APIs called at least once):\n");
	if (!ret)
		ret = show_ctrs(attrs, len, LAKE_A_API_CALLS, true);
	printf("errors (APIs that failed at least once):\n");
	return ret ? ret : show_ctrs(attrs, len, LAKE_A_API_ERRORS, true);
}

/* --- policy --------------------------------------------------------------- */

struct listing {
	const char *name;	/* only this one; NULL: all */
	unsigned int shown;
};

static void crossover(const char *key, uint32_t v)
{
	if (json)
		printf(",\"%s\":", key);
	else
		printf("  %-21s ", key);
	if (v == LAKE_GENL_CROSSOVER_NEVER)
		printf(json ? "null" : "never (uncalibrated)\n");
	else
		printf(json ? "%" PRIu32 : "%" PRIu32 "\n", v);
}

static int show_policy(struct nlattr **top, struct nlattr *attrs, int len, void *arg)
{
	struct nlattr *tb[LAKE_POLICY_A_MAX + 1], *a;
	struct listing *l = arg;
	const char *name, *cname;
	uint32_t mode;
	uint64_t v;
	int rem, n = 0;

	(void)attrs;
	(void)len;
	if (!top[LAKE_A_POLICY] || ctl_parse_policy(top[LAKE_A_POLICY], tb) ||
	    !tb[LAKE_POLICY_A_NAME])
		return -EBADMSG;
	name = nla_get_string(tb[LAKE_POLICY_A_NAME]);
	if (l->name && strcmp(l->name, name))
		return 0;
	mode = get_u32(tb, LAKE_POLICY_A_MODE);
	if (json) {
		printf("%s{\"name\":", l->shown ? "," : "");
		jstr(name);
		printf(",\"mode\":\"%s\"", mode < 3 ? mode_names[mode] : "unknown");
	} else {
		printf("%s%s\n  %-21s %s\n", l->shown ? "\n" : "", name, "mode",
		       mode < 3 ? mode_names[mode] : "unknown");
	}
	l->shown++;
	crossover("crossover", get_u32(tb, LAKE_POLICY_A_CROSSOVER));
	crossover("crossover_calibrated", get_u32(tb, LAKE_POLICY_A_CROSSOVER_CALIBRATED));
	if (json) {
		printf(",\"max_batch\":%" PRIu32 ",\"last_reason\":",
		       get_u32(tb, LAKE_POLICY_A_MAX_BATCH));
		jstr(tb[LAKE_POLICY_A_LAST_REASON] ?
		     nla_get_string(tb[LAKE_POLICY_A_LAST_REASON]) : "");
		printf(",\"decisions\":{\"cpu\":%" PRIu64 ",\"gpu\":%" PRIu64 "},\"trips\":%"
		       PRIu64 ",\"gpu_errors\":%" PRIu64 ",\"reasons\":{",
		       get_u64(tb, LAKE_POLICY_A_DECISIONS_CPU),
		       get_u64(tb, LAKE_POLICY_A_DECISIONS_GPU), get_u64(tb, LAKE_POLICY_A_TRIPS),
		       get_u64(tb, LAKE_POLICY_A_GPU_ERRORS));
	} else {
		printf("  %-21s %" PRIu32 "\n  %-21s %s\n  %-21s cpu %" PRIu64 ", gpu %" PRIu64
		       "\n  %-21s %" PRIu64 "\n  %-21s %" PRIu64 "\n  decisions by reason:\n",
		       "max_batch", get_u32(tb, LAKE_POLICY_A_MAX_BATCH), "last_reason",
		       tb[LAKE_POLICY_A_LAST_REASON] ?
		       nla_get_string(tb[LAKE_POLICY_A_LAST_REASON]) : "", "decisions",
		       get_u64(tb, LAKE_POLICY_A_DECISIONS_CPU),
		       get_u64(tb, LAKE_POLICY_A_DECISIONS_GPU), "trips",
		       get_u64(tb, LAKE_POLICY_A_TRIPS), "gpu_errors",
		       get_u64(tb, LAKE_POLICY_A_GPU_ERRORS));
	}
	nla_for_each_nested(a, top[LAKE_A_POLICY], rem) {
		if (nla_type(a) != LAKE_POLICY_A_REASON)
			continue;
		if (ctl_parse_ctr(a, &cname, &v))
			return -EBADMSG;
		if (json) {
			printf("%s", n++ ? "," : "");
			jstr(cname);
			printf(":%" PRIu64, v);
		} else if (v) {
			printf("    %-19s %" PRIu64 "\n", cname, v);
		}
	}
	if (json)
		printf("}}");
	return 0;
}

struct policy_change {
	const char *name;
	int mode;		/* -1: unchanged */
	long long crossover;	/* -1: unchanged; 0: calibrated */
};

static int fill_policy_change(struct nl_msg *msg, void *arg)
{
	struct policy_change *p = arg;
	struct nlattr *nest = nla_nest_start(msg, LAKE_A_POLICY);

	if (!nest || nla_put_string(msg, LAKE_POLICY_A_NAME, p->name) ||
	    (p->mode >= 0 && nla_put_u32(msg, LAKE_POLICY_A_MODE, (uint32_t)p->mode)) ||
	    (p->crossover >= 0 &&
	     nla_put_u32(msg, LAKE_POLICY_A_CROSSOVER, (uint32_t)p->crossover)))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* --- registry ------------------------------------------------------------- */

static int show_registry(struct nlattr **top, struct nlattr *attrs, int len, void *arg)
{
	struct nlattr *tb[LAKE_REGISTRY_A_MAX + 1], *ft[LAKE_FEATURE_A_MAX + 1], *a;
	struct listing *l = arg;
	const char *name;
	int rem, n = 0;

	(void)attrs;
	(void)len;
	if (!top[LAKE_A_REGISTRY] || ctl_parse_registry(top[LAKE_A_REGISTRY], tb) ||
	    !tb[LAKE_REGISTRY_A_NAME])
		return -EBADMSG;
	name = nla_get_string(tb[LAKE_REGISTRY_A_NAME]);
	if (l->name && strcmp(l->name, name))
		return 0;
	if (json) {
		printf("%s{\"name\":", l->shown ? "," : "");
		jstr(name);
		printf(",\"capacity\":%" PRIu32 ",\"count\":%" PRIu32 ",\"open\":%" PRIu32
		       ",\"max_open\":%" PRIu32 ",\"vector_bytes\":%" PRIu32 ",\"committed\":%"
		       PRIu64 ",\"dropped\":%" PRIu64 ",\"truncated\":%" PRIu64 ",\"aborted\":%"
		       PRIu64 ",\"begin_failed\":%" PRIu64 ",\"features\":[",
		       get_u32(tb, LAKE_REGISTRY_A_CAPACITY), get_u32(tb, LAKE_REGISTRY_A_COUNT),
		       get_u32(tb, LAKE_REGISTRY_A_OPEN), get_u32(tb, LAKE_REGISTRY_A_MAX_OPEN),
		       get_u32(tb, LAKE_REGISTRY_A_VECTOR_BYTES),
		       get_u64(tb, LAKE_REGISTRY_A_COMMITTED), get_u64(tb, LAKE_REGISTRY_A_DROPPED),
		       get_u64(tb, LAKE_REGISTRY_A_TRUNCATED), get_u64(tb, LAKE_REGISTRY_A_ABORTED),
		       get_u64(tb, LAKE_REGISTRY_A_BEGIN_FAILED));
	} else {
		printf("%s%s\n  fill      %" PRIu32 " of %" PRIu32 " records, %" PRIu32 " of %"
		       PRIu32 " vectors open, %" PRIu32 " bytes a vector\n"
		       "  records   %" PRIu64 " committed, %" PRIu64 " dropped, %" PRIu64
		       " truncated, %" PRIu64 " aborted, %" PRIu64 " begin failed\n  schema\n",
		       l->shown ? "\n" : "", name,
		       get_u32(tb, LAKE_REGISTRY_A_COUNT), get_u32(tb, LAKE_REGISTRY_A_CAPACITY),
		       get_u32(tb, LAKE_REGISTRY_A_OPEN), get_u32(tb, LAKE_REGISTRY_A_MAX_OPEN),
		       get_u32(tb, LAKE_REGISTRY_A_VECTOR_BYTES),
		       get_u64(tb, LAKE_REGISTRY_A_COMMITTED), get_u64(tb, LAKE_REGISTRY_A_DROPPED),
		       get_u64(tb, LAKE_REGISTRY_A_TRUNCATED), get_u64(tb, LAKE_REGISTRY_A_ABORTED),
		       get_u64(tb, LAKE_REGISTRY_A_BEGIN_FAILED));
	}
	l->shown++;
	nla_for_each_nested(a, top[LAKE_A_REGISTRY], rem) {
		if (nla_type(a) != LAKE_REGISTRY_A_FEATURE)
			continue;
		if (ctl_parse_feature(a, ft) || !ft[LAKE_FEATURE_A_NAME])
			return -EBADMSG;
		if (json) {
			printf("%s{\"name\":", n ? "," : "");
			jstr(nla_get_string(ft[LAKE_FEATURE_A_NAME]));
			printf(",\"size\":%" PRIu32 ",\"entries\":%" PRIu32 "}",
			       get_u32(ft, LAKE_FEATURE_A_SIZE), get_u32(ft, LAKE_FEATURE_A_ENTRIES));
		} else {
			printf("    %-20s %" PRIu32 " bytes x %" PRIu32 "\n",
			       nla_get_string(ft[LAKE_FEATURE_A_NAME]),
			       get_u32(ft, LAKE_FEATURE_A_SIZE), get_u32(ft, LAKE_FEATURE_A_ENTRIES));
		}
		n++;
	}
	if (json)
		printf("]}");
	return 0;
}

/* --- commands ------------------------------------------------------------- */

static int exit_for(int err, const char *what)
{
	switch (err) {
	case 0:
		return EXIT_OK;
	case -EPERM:
	case -EACCES:
		fprintf(stderr, "lakectl: %s: permission denied (needs CAP_NET_ADMIN)\n", what);
		return EXIT_PERM;
	case -ENOENT:
		fprintf(stderr, "lakectl: %s: not found\n", what);
		return EXIT_NOT_FOUND;
	default:
		fprintf(stderr, "lakectl: %s: %s\n", what, strerror(-err));
		return EXIT_ERROR;
	}
}

static int cmd_status(struct ctl *c, int argc, char **argv)
{
	bool up = false;
	int ret;

	(void)argv;
	if (argc)
		return EXIT_USAGE;
	ret = ctl_request(c, LAKE_CMD_STATUS_GET, false, NULL, NULL, show_status, &up);
	if (ret)
		return exit_for(ret, "status");
	return up ? EXIT_OK : EXIT_NO_DAEMON;
}

static int cmd_stats(struct ctl *c, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return EXIT_USAGE;
	return exit_for(ctl_request(c, LAKE_CMD_STATS_GET, false, NULL, NULL, show_stats, NULL),
			"stats");
}

/* A dump, as a JSON array or text; EXIT_NOT_FOUND when @name is not in it. */
static int list(struct ctl *c, uint8_t cmd, ctl_msg_fn fn, const char *name, const char *what)
{
	struct listing l = { .name = name };
	int ret;

	if (json)
		printf("[");
	ret = ctl_request(c, cmd, true, NULL, NULL, fn, &l);
	if (json)
		printf("]\n");
	if (ret)
		return exit_for(ret, what);
	if (name && !l.shown) {
		fprintf(stderr, "lakectl: no %s named \"%s\"\n", what, name);
		return EXIT_NOT_FOUND;
	}
	if (!json && !l.shown)
		printf("no %s\n", what);
	return EXIT_OK;
}

static int cmd_policy(struct ctl *c, int argc, char **argv)
{
	struct policy_change p = { .mode = -1, .crossover = -1 };
	char *end;
	int i;

	if (argc <= 1)
		return list(c, LAKE_CMD_POLICY_GET, show_policy, argc ? argv[0] : NULL, "policy");
	if (argc != 3)
		return EXIT_USAGE;
	p.name = argv[0];
	if (strlen(p.name) >= LAKE_GENL_NAME_MAX)
		return EXIT_USAGE;
	if (!strcmp(argv[1], "mode")) {
		for (i = 0; i < 3; i++)
			if (!strcmp(argv[2], mode_names[i]))
				p.mode = i;
		if (p.mode < 0)
			return EXIT_USAGE;
	} else if (!strcmp(argv[1], "crossover")) {
		if (!strcmp(argv[2], "calibrated")) {
			p.crossover = 0;
		} else {
			errno = 0;
			p.crossover = strtoll(argv[2], &end, 10);
			if (errno || *end || p.crossover < 1 || p.crossover > UINT32_MAX - 1)
				return EXIT_USAGE;
		}
	} else {
		return EXIT_USAGE;
	}
	i = ctl_request(c, LAKE_CMD_POLICY_SET, false, fill_policy_change, &p, NULL, NULL);
	if (i == -ENOENT) {
		fprintf(stderr, "lakectl: no policy named \"%s\"\n", p.name);
		return EXIT_NOT_FOUND;
	}
	if (i == -EINVAL) {
		fprintf(stderr, "lakectl: policy %s refused %s %s\n", p.name, argv[1], argv[2]);
		return EXIT_ERROR;
	}
	return exit_for(i, "policy");
}

static int cmd_registry(struct ctl *c, int argc, char **argv)
{
	if (argc > 1)
		return EXIT_USAGE;
	return list(c, LAKE_CMD_REGISTRY_GET, show_registry, argc ? argv[0] : NULL, "registry");
}

static const struct {
	const char *name;
	int (*fn)(struct ctl *c, int argc, char **argv);
} commands[] = {
	{ "status", cmd_status },
	{ "stats", cmd_stats },
	{ "policy", cmd_policy },
	{ "registry", cmd_registry },
};

int main(int argc, char **argv)
{
	struct ctl *c;
	size_t i;
	int ret;

	for (argc--, argv++; argc && argv[0][0] == '-'; argc--, argv++) {
		if (!strcmp(argv[0], "-j") || !strcmp(argv[0], "--json")) {
			json = true;
		} else if (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
			fputs(usage, stdout);
			return EXIT_OK;
		} else {
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	for (i = 0; argc && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[0], commands[i].name))
			break;
	if (!argc || i == sizeof(commands) / sizeof(commands[0])) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	ret = ctl_open(&c);
	if (ret == -ENOENT) {
		fprintf(stderr, "lakectl: no \"%s\" genl family: is lakelib.ko loaded?\n",
			LAKE_GENL_NAME);
		return EXIT_NO_LAKELIB;
	}
	if (ret) {
		fprintf(stderr, "lakectl: netlink: %s\n", strerror(-ret));
		return EXIT_ERROR;
	}
	ret = commands[i].fn(c, argc - 1, argv + 1);
	if (ret == EXIT_USAGE)
		fputs(usage, stderr);
	ctl_close(c);
	return ret;
}
