// SPDX-License-Identifier: GPL-2.0
/*
 * Encoder and validating iterator for the records of uapi/lake/wire.h. The
 * same object runs in lakelib.ko, in laked, in the host tests and in the
 * fuzzer: it allocates nothing and reads only inside the buffers it is given.
 *
 * Validation happens on a decoded view (struct lake_wire_req/rep), so the
 * encoder and the iterator share it: an encoder that accepts a view produces
 * bytes the peer's iterator accepts. Framing (lengths, alignment, padding
 * between records) is checked by the iterator, since the encoder computes it.
 */
#include <lake/wire.h>

#define REQ_HDR_LEN	((u32)sizeof(struct lake_wire_req_hdr))
#define REP_HDR_LEN	((u32)sizeof(struct lake_wire_rep_hdr))
#define HDR_LEN_OFF	offsetof(struct lake_wire_req_hdr, len)

/* The iterator reads the length before it knows which header it holds. */
_Static_assert(offsetof(struct lake_wire_rep_hdr, len) == HDR_LEN_OFF, "len shared");

static int fail(const char **why, const char *reason, int err)
{
	*why = reason;
	return err;
}

static bool all_zero(const void *p, u32 len)
{
	const u8 *b = p;
	u32 i;

	for (i = 0; i < len; i++) {
		if (b[i])
			return false;
	}
	return true;
}

/* The struct's trailing pad, at @pad_off when the row names one. */
static bool pad_clear(const void *fixed, u16 pad_off)
{
	return !pad_off || all_zero((const u8 *)fixed + pad_off, sizeof(u32));
}

static int check_tail(u8 kind, u16 max, const void *tail, u32 len, const char **why)
{
	if (len > max)
		return fail(why, "tail over the API's bound", -EMSGSIZE);
	if (len && !tail)
		return fail(why, "tail length without tail data", -EINVAL);
	if (kind != LAKE_WIRE_TAIL_CSTRING)
		return 0;
	/* One character at least, and exactly one NUL, at the end. */
	if (len < 2)
		return fail(why, "empty string", -EINVAL);
	if (strnlen(tail, len) != len - 1)
		return fail(why, "string not NUL-terminated at its end", -EINVAL);
	return 0;
}

/* Records are padded to 8 bytes; the sum cannot wrap: every term is bounded. */
static u32 record_len(u32 hdr, u32 fixed, u32 tail)
{
	return (u32)LAKE_ALIGN_UP(hdr + fixed + tail, LAKE_WIRE_ALIGN);
}

int lake_wire_check_req(const struct lake_wire_req *req, const char **why)
{
	const struct lake_wire_api_desc *d = lake_wire_api(req->api);
	int ret;

	if (!d)
		return fail(why, "unknown api id", -EPROTO);
	if (req->flags & ~LAKE_WIRE_REQ_F_ALL)
		return fail(why, "unknown request flags", -EPROTO);
	if ((req->flags & LAKE_WIRE_REQ_F_NOREPLY) && !(d->flags & LAKE_WIRE_ASYNC))
		return fail(why, "no-reply flag on a synchronous call", -EINVAL);
	if ((req->flags & LAKE_WIRE_REQ_F_STAGED) && req->api != LAKE_API_MEMCPY_HTOD &&
	    req->api != LAKE_API_MEMCPY_DTOH && req->api != LAKE_API_MEMCPY_HTOD_ASYNC &&
	    req->api != LAKE_API_MEMCPY_DTOH_ASYNC)
		return fail(why, "staged flag on a call that is not a copy", -EINVAL);
	if (req->ctx && !(d->flags & LAKE_WIRE_CTX))
		return fail(why, "context on a context-free call", -EINVAL);
	if (req->stream && !(d->flags & LAKE_WIRE_STREAM))
		return fail(why, "stream on a stream-free call", -EINVAL);
	if (!pad_clear(&req->args, d->req_pad))
		return fail(why, "request pad field not zero", -EPROTO);
	ret = check_tail(d->req_tail, d->req_tail_max, req->tail, req->tail_len, why);
	if (ret)
		return ret;
	return d->check_req ? d->check_req(req, why) : 0;
}

int lake_wire_check_rep(const struct lake_wire_rep *rep, const char **why)
{
	const struct lake_wire_api_desc *d = lake_wire_api(rep->api);
	int ret;

	if (!d)
		return fail(why, "unknown api id", -EPROTO);
	if (rep->result) {
		if (rep->tail_len)
			return fail(why, "failed call with reply data", -EPROTO);
		return 0;
	}
	if (!pad_clear(&rep->res, d->rep_pad))
		return fail(why, "reply pad field not zero", -EPROTO);
	ret = check_tail(d->rep_tail, d->rep_tail_max, rep->tail, rep->tail_len, why);
	if (ret)
		return ret;
	return d->check_rep ? d->check_rep(rep, why) : 0;
}

/* Header, fixed part, tail and zero padding, or nothing when it does not fit. */
static int put_record(struct lake_wire_buf *buf, const void *hdr, u32 hdr_len,
		      const void *fixed, u32 fixed_len, const void *tail, u32 tail_len,
		      u32 len, const char **why)
{
	u8 *p;

	if (buf->len > buf->size || len > buf->size - buf->len)
		return fail(why, "record does not fit in the buffer", -EMSGSIZE);
	p = (u8 *)buf->data + buf->len;
	memcpy(p, hdr, hdr_len);
	p += hdr_len;
	if (fixed_len)
		memcpy(p, fixed, fixed_len);
	p += fixed_len;
	if (tail_len)
		memcpy(p, tail, tail_len);
	p += tail_len;
	memset(p, 0, len - hdr_len - fixed_len - tail_len);
	buf->len += len;
	return 0;
}

int lake_wire_put_req(struct lake_wire_buf *buf, const struct lake_wire_req *req,
		      const char **why)
{
	struct lake_wire_req_hdr h = {};
	const struct lake_wire_api_desc *d;
	int ret;

	ret = lake_wire_check_req(req, why);
	if (ret)
		return ret;
	d = lake_wire_api(req->api);
	h.api = req->api;
	h.flags = req->flags;
	h.len = record_len(REQ_HDR_LEN, d->req_size, req->tail_len);
	h.tail_len = req->tail_len;
	h.req_id = req->req_id;
	h.ctx = req->ctx;
	h.stream = req->stream;
	return put_record(buf, &h, REQ_HDR_LEN, &req->args, d->req_size,
			  req->tail, req->tail_len, h.len, why);
}

int lake_wire_put_rep(struct lake_wire_buf *buf, const struct lake_wire_rep *rep,
		      const char **why)
{
	struct lake_wire_rep_hdr h = {};
	const struct lake_wire_api_desc *d;
	u32 fixed;
	int ret;

	ret = lake_wire_check_rep(rep, why);
	if (ret)
		return ret;
	d = lake_wire_api(rep->api);
	fixed = rep->result ? 0 : d->rep_size;
	h.api = rep->api;
	h.len = record_len(REP_HDR_LEN, fixed, rep->tail_len);
	h.tail_len = rep->tail_len;
	h.result = rep->result;
	h.req_id = rep->req_id;
	return put_record(buf, &h, REP_HDR_LEN, &rep->res, fixed,
			  rep->tail, rep->tail_len, h.len, why);
}

void lake_wire_iter_init(struct lake_wire_iter *it, const void *data, u32 size)
{
	it->data = data;
	it->size = size;
	it->pos = 0;
	it->err = 0;
	it->why = NULL;
}

static int iter_fail(struct lake_wire_iter *it, const char *reason, int err)
{
	it->why = reason;
	it->err = err;
	return err;
}

/*
 * Read the next record's header into @hdr and check its length against what
 * is left: 1 and the record's bounds in *len, 0 at the end, or -errno.
 */
static int iter_frame(struct lake_wire_iter *it, void *hdr, u32 hdr_len, u32 *len)
{
	u32 left;

	if (it->err)
		return it->err;
	if (it->pos == it->size)
		return 0;
	left = it->size - it->pos;
	if (left < hdr_len)
		return iter_fail(it, "truncated record header", -EMSGSIZE);
	memcpy(hdr, it->data + it->pos, hdr_len);
	memcpy(len, (const u8 *)hdr + HDR_LEN_OFF, sizeof(*len));
	if (*len < hdr_len)
		return iter_fail(it, "record shorter than its header", -EPROTO);
	if (*len % LAKE_WIRE_ALIGN)
		return iter_fail(it, "record length not a multiple of 8", -EPROTO);
	if (*len > left)
		return iter_fail(it, "record runs past the end of the blob", -EMSGSIZE);
	return 1;
}

/*
 * The body after a header: its length must be exactly what the API's fixed
 * size and the tail length make, and the padding after the tail zero.
 */
static int iter_body(struct lake_wire_iter *it, u32 hdr_len, u32 len, u32 fixed,
		     u32 tail_len, u16 tail_max, void *fixed_out, const void **tail)
{
	const u8 *rec = it->data + it->pos;
	u32 used;

	if (tail_len > tail_max)
		return iter_fail(it, "tail over the API's bound", -EMSGSIZE);
	used = hdr_len + fixed + tail_len;
	if (len != record_len(hdr_len, fixed, tail_len))
		return iter_fail(it, "record length does not match its API", -EPROTO);
	if (!all_zero(rec + used, len - used))
		return iter_fail(it, "record padding not zero", -EPROTO);
	memcpy(fixed_out, rec + hdr_len, fixed);
	*tail = tail_len ? rec + hdr_len + fixed : NULL;
	return 0;
}

int lake_wire_next_req(struct lake_wire_iter *it, struct lake_wire_req *req)
{
	const struct lake_wire_api_desc *d;
	struct lake_wire_req_hdr h;
	const char *why = NULL;
	u32 len;
	int ret;

	ret = iter_frame(it, &h, REQ_HDR_LEN, &len);
	if (ret <= 0)
		return ret;
	d = lake_wire_api(h.api);
	if (!d)
		return iter_fail(it, "unknown api id", -EPROTO);
	if (h.pad)
		return iter_fail(it, "request header pad not zero", -EPROTO);
	memset(req, 0, sizeof(*req));
	ret = iter_body(it, REQ_HDR_LEN, len, d->req_size, h.tail_len, d->req_tail_max,
			&req->args, &req->tail);
	if (ret)
		return ret;
	req->api = h.api;
	req->flags = h.flags;
	req->req_id = h.req_id;
	req->ctx = h.ctx;
	req->stream = h.stream;
	req->tail_len = h.tail_len;
	ret = lake_wire_check_req(req, &why);
	if (ret)
		return iter_fail(it, why, ret);
	it->pos += len;
	return 1;
}

int lake_wire_next_rep(struct lake_wire_iter *it, struct lake_wire_rep *rep)
{
	const struct lake_wire_api_desc *d;
	struct lake_wire_rep_hdr h;
	const char *why = NULL;
	u32 len;
	int ret;

	ret = iter_frame(it, &h, REP_HDR_LEN, &len);
	if (ret <= 0)
		return ret;
	d = lake_wire_api(h.api);
	if (!d)
		return iter_fail(it, "unknown api id", -EPROTO);
	if (h.pad)
		return iter_fail(it, "reply header pad not zero", -EPROTO);
	if (h.result && h.tail_len)
		return iter_fail(it, "failed call with reply data", -EPROTO);
	memset(rep, 0, sizeof(*rep));
	ret = iter_body(it, REP_HDR_LEN, len, h.result ? 0 : d->rep_size, h.tail_len,
			d->rep_tail_max, &rep->res, &rep->tail);
	if (ret)
		return ret;
	rep->api = h.api;
	rep->result = h.result;
	rep->req_id = h.req_id;
	rep->tail_len = h.tail_len;
	ret = lake_wire_check_rep(rep, &why);
	if (ret)
		return iter_fail(it, why, ret);
	it->pos += len;
	return 1;
}

int lake_wire_rep_matches(const struct lake_wire_req *req, const struct lake_wire_rep *rep,
			  const char **why)
{
	const struct lake_wire_memcpy_args *a = &req->args.memcpy;
	u64 want;

	if (rep->api != req->api)
		return fail(why, "reply is for another api", -EPROTO);
	if (rep->req_id != req->req_id)
		return fail(why, "reply is for another request", -EPROTO);
	if (rep->result || (req->api != LAKE_API_MEMCPY_DTOH &&
			    req->api != LAKE_API_MEMCPY_DTOH_ASYNC))
		return 0;
	want = a->where == LAKE_WIRE_INLINE ? a->bytes : 0;
	if (rep->tail_len != want)
		return fail(why, "reply data length differs from the copy asked for", -EPROTO);
	return 0;
}

int lake_wire_check_layout(const struct lake_wire_get_function_res *res,
			   const struct lake_kernel_sig *sig, const char **why)
{
	u32 i;

	if (!sig->name || !sig->count || sig->count > LAKE_KERNEL_MAX_PARAMS)
		return fail(why, "declared signature is malformed", -EINVAL);
	if (res->count != sig->count)
		return fail(why, "parameter count differs from the declared signature", -EPROTO);
	for (i = 0; i < sig->count; i++) {
		if (res->param[i].offset != sig->param[i].offset ||
		    res->param[i].size != sig->param[i].size)
			return fail(why, "a parameter differs from the declared signature",
				    -EPROTO);
	}
	return 0;
}

int lake_wire_pack_params(const struct lake_wire_get_function_res *res,
			  void *const *params, void *out, u32 out_size)
{
	u32 end = 0, i;

	if (res->count > LAKE_WIRE_MAX_PARAMS)
		return -EINVAL;
	for (i = 0; i < res->count; i++) {
		const struct lake_wire_param *p = &res->param[i];

		if (!params[i])
			return -EINVAL;
		if ((u64)p->offset + p->size > out_size)
			return -EMSGSIZE;
		if (p->offset + p->size > end)
			end = p->offset + p->size;
	}
	memset(out, 0, end);
	for (i = 0; i < res->count; i++)
		memcpy((u8 *)out + res->param[i].offset, params[i], res->param[i].size);
	return end;
}

int lake_wire_check_load(const struct lake_genl_load *load, const char **why)
{
	if (load->flags & ~LAKE_LOAD_F_ALL)
		return fail(why, "unknown load flags", -EPROTO);
	if (!load->period_ms)
		return fail(why, "zero sampling period", -EINVAL);
	if (!(load->flags & LAKE_LOAD_F_UTIL) && load->util_pct)
		return fail(why, "utilization without its flag", -EINVAL);
	if (load->util_pct > 100)
		return fail(why, "utilization over 100%", -EINVAL);
	if (!(load->flags & LAKE_LOAD_F_PROCS) && load->procs)
		return fail(why, "process count without its flag", -EINVAL);
	if (!(load->flags & LAKE_LOAD_F_MEM) && (load->mem_used || load->mem_total))
		return fail(why, "memory figures without their flag", -EINVAL);
	if (load->mem_used > load->mem_total)
		return fail(why, "memory used over total", -EINVAL);
	if (!(load->flags & LAKE_LOAD_F_QUEUE) && load->queued)
		return fail(why, "queue occupancy without its flag", -EINVAL);
	if (load->pad)
		return fail(why, "non-zero padding", -EPROTO);
	return 0;
}
