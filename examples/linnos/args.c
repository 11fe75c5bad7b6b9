// SPDX-License-Identifier: GPL-2.0
/*
 * dm-linnos's argument parsing (args.h). ASCII classes are spelled out:
 * the kernel's isalnum() also takes Latin-1 letters, which a firmware name
 * must not have.
 */
#include "args.h"

static const char *const mode_names[LINNOS_NR_MODES] = {
	[LINNOS_MODE_AUTO] = "auto",
	[LINNOS_MODE_CPU] = "cpu",
	[LINNOS_MODE_GPU] = "gpu",
	[LINNOS_MODE_OFF] = "off",
	[LINNOS_MODE_SHADOW] = "shadow",
};

const char *linnos_mode_name(int mode)
{
	return mode >= 0 && mode < LINNOS_NR_MODES ? mode_names[mode] : "?";
}

int linnos_parse_mode(const char *s)
{
	int i;

	for (i = 0; i < LINNOS_NR_MODES; i++)
		if (!strcmp(s, mode_names[i]))
			return i;
	return -EINVAL;
}

int linnos_parse_threshold(const char *s, u32 *us)
{
	u32 v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (u32)(*s - '0');
		/* Stops long before v * 10 could wrap. */
		if (v > LINNOS_MAX_THRESHOLD_US)
			return -EINVAL;
	}
	if (!v)
		return -EINVAL;
	*us = v;
	return 0;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-' || c == '/';
}

bool linnos_model_name_ok(const char *s)
{
	size_t len = strlen(s);

	if (!len || len >= LINNOS_MODEL_NAME_MAX || s[0] == '/' || strstr(s, ".."))
		return false;
	for (; *s; s++)
		if (!name_char(*s))
			return false;
	return true;
}

int linnos_parse_options(struct linnos_opts *o, unsigned int argc, char **argv,
			 const char **error)
{
	unsigned int i;
	int mode;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "mode=", 5)) {
			mode = linnos_parse_mode(argv[i] + 5);
			if (mode < 0) {
				*error = "bad mode= (auto, cpu, gpu, off, shadow)";
				return -EINVAL;
			}
			o->mode = mode;
		} else if (!strncmp(argv[i], "threshold=", 10)) {
			if (linnos_parse_threshold(argv[i] + 10, &o->threshold_us)) {
				*error = "bad threshold= (1..10000000 us)";
				return -EINVAL;
			}
			o->threshold_set = true;
		} else if (!strncmp(argv[i], "model=", 6)) {
			o->model = argv[i] + 6;
		} else {
			*error = "unknown option (mode=, threshold=, model=)";
			return -EINVAL;
		}
	}
	return 0;
}
