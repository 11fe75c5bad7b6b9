/* SPDX-License-Identifier: GPL-2.0 */
/* Example records for the wire codec's tests and fuzz seeds. */
#ifndef LAKE_TESTS_WIRE_EXAMPLES_H
#define LAKE_TESTS_WIRE_EXAMPLES_H

#include <lake/wire.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Inline data and launch parameters; filled by wire_examples_init(). */
extern u8 wire_pattern[LAKE_WIRE_INLINE_MAX];
extern const char wire_module_path[];
extern const char wire_func_name[];
extern const char wire_device_name[];

void wire_examples_init(void);

/* A valid request for @api; its tail, if any, is one of the buffers above. */
void wire_example_req(u16 api, struct lake_wire_req *r);

/*
 * A successful reply to wire_example_req(@api). The DtoH examples differ on
 * purpose: cuMemcpyDtoH goes through the shared region, cuMemcpyDtoHAsync
 * inline, so both reply forms are covered.
 */
void wire_example_rep(u16 api, struct lake_wire_rep *r);

/* Encode into a scratch buffer; the encoder's result. */
int wire_put_req(const struct lake_wire_req *r);
int wire_put_rep(const struct lake_wire_rep *r);

#endif /* LAKE_TESTS_WIRE_EXAMPLES_H */
