// SPDX-License-Identifier: GPL-2.0-only
#include "wire/batch_encode.h"
#include "base/clock.h"
#include "wire/compress.h"
#include "wire/encoders.h"
#include "wire/pb_write.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

size_t batch_item_size(const struct series_set *set, size_t i, enum wire_format f)
{
	const struct series_item *it = &set->items[i];
	/* upper bounds of the protobuf framing for labels under 16 KiB */
	size_t n = 0, per_label = f == WIRE_OTLP ? 12 : 9;

	for (uint32_t k = 0; k < it->nr_labels; k++) {
		struct label_pair l;
		struct label_len len;
		const char *sent;

		series_item_label(set, it, k, &l, &len);
		/* OTLP renames some labels (the longer name when it depends on the series) */
		sent = f == WIRE_OTLP ? otlp_attribute_name(l.name, true) : l.name;
		n += (sent == l.name ? len.name : strlen(sent)) + len.value + per_label;
	}
	return n + (f == WIRE_OTLP ? 40 : 26);
}

static int push_payload(struct payload_list *out, const struct payload *p)
{
	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 8;
		void *np = realloc(out->p, cap * sizeof(*out->p));

		if (!np)
			return -ENOMEM;
		out->p = np;
		out->cap = cap;
	}
	out->p[out->n++] = *p;
	return 0;
}

static int encode_one(const struct series_set *set, size_t from, size_t to, enum wire_format f,
		      struct label_cache *c, struct byte_buf *raw, struct sample_slot *slots)
{
	switch (f) {
	case WIRE_REMOTE_WRITE:
		return remote_write_encode(set, from, to, c, raw, slots);
	case WIRE_REMOTE_WRITE_V2:
		return remote_write_v2_encode(set, from, to, c, raw, slots);
	case WIRE_OTLP:
		break; /* streamed: otlp_request() */
	}
	return -EINVAL;
}

/* A remote write 1.0 + snappy request is encoded and compressed this many items at a time (a piece). */
#define KEPT_PIECE_ITEMS 2048

struct piece_ctx {
	const struct series_set *set;
	enum wire_format f;
	struct payload_list *out;
	uint64_t encode_ns;
};

static int encode_piece(void *arg, size_t a, size_t b, struct sample_slot *slots, const struct byte_buf **raw)
{
	struct piece_ctx *p = arg;
	uint64_t cpu = thread_cpu_ns();
	int err = encode_one(p->set, a, b, p->f, p->out->cache, &p->out->raw, slots);

	p->encode_ns += thread_cpu_ns() - cpu;
	*raw = &p->out->raw;
	return err;
}

/*
 * Encodes items [from, to) of @set and keeps the request (wire/request_patch.h)
 * for the intervals after, as @out->kept's request @at (appended when it is
 * kept->nr; when it replaces one, of the same items, the values that had
 * room keep it). Remote write 1.0 + snappy goes piece by piece, so that
 * @out->raw holds a piece, not the request; the rest, or a block that
 * cannot be patched directly, whole in @out->raw.
 */
static int encode_kept(const struct series_set *set, size_t from, size_t to, enum wire_format f,
		       struct payload_list *out, size_t at)
{
	struct sample_slot *slots = malloc((to > from ? to - from : 1) * sizeof(*slots));
	uint64_t cpu;
	int err;

	if (!slots)
		return -ENOMEM;
	/* a request encoded again keeps room for the values it had room for (any value_at but NONE) */
	for (size_t i = 0; i < to - from; i++)
		slots[i].value_at = at < out->kept.nr && kept_request_has_room(&out->kept.req[at], i) ? 0
											: SAMPLE_SLOT_NONE;
	if (f == WIRE_REMOTE_WRITE && out->kept.compression == COMPRESSION_SNAPPY) {
		struct piece_ctx ctx = { .set = set, .f = f, .out = out };

		cpu = thread_cpu_ns();
		err = kept_requests_put_pieces(&out->kept, at, from, to, KEPT_PIECE_ITEMS, slots, set->ts_ms,
					       encode_piece, &ctx);
		out->compress_cpu_ns += thread_cpu_ns() - cpu - ctx.encode_ns;
		if (err != -EAGAIN) {
			free(slots);
			return err;
		}
	}
	err = encode_one(set, from, to, f, out->cache, &out->raw, slots);
	if (err) {
		free(slots);
		return err;
	}
	cpu = thread_cpu_ns(); /* mostly the compressed block, when one is kept */
	err = kept_requests_put(&out->kept, at, from, to, &out->raw, slots, set->ts_ms);
	out->compress_cpu_ns += thread_cpu_ns() - cpu;
	return err;
}

/* Items [from, to) of one set: one part of a request. */
struct range {
	const struct series_set *set;
	size_t from, to;
};

static int append_bytes(struct byte_buf *dst, const uint8_t *src, size_t len)
{
	int err = byte_buf_reserve(dst, dst->len + len);

	if (err)
		return err;
	memcpy(dst->data + dst->len, src, len);
	dst->len += len;
	return 0;
}

/* Room for request @at's body, kept across calls. */
static struct byte_buf *body_buf(struct payload_list *out, size_t at)
{
	if (at == out->nr_bodies) {
		void *nb = realloc(out->bodies, (at + 1) * sizeof(*out->bodies));

		if (!nb)
			return NULL;
		out->bodies = nb;
		out->bodies[out->nr_bodies++] = (struct byte_buf){ 0 };
	}
	return &out->bodies[at];
}

/* Compresses the protobuf @raw of @nr_samples items into a payload of @out. */
static int compress_payload(const struct byte_buf *raw, size_t nr_samples, enum wire_format f, enum compression c,
			    struct payload_list *out)
{
	struct payload p = { .format = f, .compression = c, .nr_samples = nr_samples, .raw_len = raw->len };
	struct byte_buf *z;
	uint64_t cpu;
	int err = 0;

	cpu = thread_cpu_ns();
	if (!(z = body_buf(out, out->n))) {
		err = -ENOMEM;
	} else if (!(err = compress_body(&out->compressor, c, raw->data, raw->len, z))) {
		p.body = z->data;
		p.len = z->len;
	}
	out->compress_cpu_ns += thread_cpu_ns() - cpu;
	return err ? err : push_payload(out, &p);
}

/*
 * The payload of a kept request: its block, patched (counted as encoding,
 * as writing the samples into the block directly is; no clock read, a
 * system call), or its protobuf compressed.
 */
static int kept_payload(struct kept_request *r, enum wire_format f, enum compression c, struct payload_list *out)
{
	const struct byte_buf *block = kept_request_block(r);
	struct payload p = { .format = f, .compression = c, .nr_samples = r->to - r->from, .raw_len = r->raw_len };

	if (!block)
		return compress_payload(&r->raw, p.nr_samples, f, c, out);
	p.body = block->data;
	p.len = block->len;
	return push_payload(out, &p);
}

/*
 * OTLP: each request encoded anew every interval and compressed as it is
 * encoded (wire/compress.h's stream), into the body of the payload to
 * come, @out->n: nothing of it is kept, and only a piece of its protobuf
 * is in memory at a time.
 */
struct otlp_stream {
	struct payload_list *out;
	enum compression c;
	/* a request of its own: its ranges (the size is pledged for one) */
	size_t nr_ranges;
	bool begun;
	size_t raw_len;
	/* a joined request: the limits, and the samples of the range that starts */
	const struct batch_limits *lim;
	size_t samples;
};

static int stream_begin(struct payload_list *out, enum compression c, size_t total)
{
	struct byte_buf *z = body_buf(out, out->n);

	return z ? compress_stream_begin(&out->compressor, c, total, z) : -ENOMEM;
}

static int stream_put(void *ctx, const uint8_t *data, size_t len)
{
	struct otlp_stream *s = ctx;
	uint64_t cpu = thread_cpu_ns();
	int err = compress_stream_add(&s->out->compressor, data, len, &s->out->bodies[s->out->n]);

	s->out->compress_cpu_ns += thread_cpu_ns() - cpu;
	return err;
}

/* Ends the stream under way as payload @out->n. */
static int stream_end(struct payload_list *out, enum compression c, size_t nr_samples, size_t raw_len)
{
	struct byte_buf *z = &out->bodies[out->n];
	uint64_t cpu = thread_cpu_ns();
	int err = compress_stream_end(&out->compressor, z);
	struct payload p = { .format = WIRE_OTLP, .compression = c, .nr_samples = nr_samples, .raw_len = raw_len,
			     .body = z->data, .len = z->len };

	out->compress_cpu_ns += thread_cpu_ns() - cpu;
	return err ? err : push_payload(out, &p);
}

static int request_start(void *ctx, size_t total)
{
	struct otlp_stream *s = ctx;
	int err = 0;

	if (!s->begun)
		err = stream_begin(s->out, s->c, s->nr_ranges == 1 ? total : COMPRESS_TOTAL_UNKNOWN);
	s->begun = true;
	s->raw_len += total;
	return err;
}

/* One OTLP request of @n ranges, streamed into a payload of @out. */
static int otlp_request(const struct range *r, size_t n, enum compression c, struct payload_list *out)
{
	struct otlp_stream s = { .out = out, .c = c, .nr_ranges = n };
	const struct piece_sink sink = { request_start, stream_put, &s };
	size_t nr_samples = 0;
	int err = 0;

	for (size_t k = 0; k < n && !err; k++) {
		err = otlp_encode(r[k].set, r[k].from, r[k].to, out->cache, &out->otlp, &sink);
		nr_samples += r[k].to - r[k].from;
	}
	return err ? err : stream_end(out, c, nr_samples, s.raw_len);
}

/*
 * Encodes one request of @n ranges and compresses it into a payload of
 * @out. Several ranges (of several intervals) are encoded one by one and
 * their protobuf joined: a message's encodings concatenated are the
 * message with the repeated fields of all (remote write 1.0's timeseries,
 * OTLP's resource_metrics).
 */
static int encode_request(const struct range *r, size_t n, enum wire_format f, enum compression c,
			  const struct batch_limits *lim, struct payload_list *out)
{
	const struct byte_buf *raw = &out->raw;
	size_t nr_samples = 0;
	int err = 0;

	(void)lim; /* cut already */
	if (f == WIRE_OTLP)
		return otlp_request(r, n, c, out);
	for (size_t k = 0; k < n; k++)
		nr_samples += r[k].to - r[k].from;
	if (n == 1 && out->kept.recording) {
		err = encode_kept(r[0].set, r[0].from, r[0].to, f, out, out->kept.nr);
		return err ? err : kept_payload(&out->kept.req[out->kept.nr - 1], f, c, out);
	} else if (n == 1) {
		err = encode_one(r[0].set, r[0].from, r[0].to, f, out->cache, &out->raw, NULL);
	} else {
		out->joined.len = 0;
		for (size_t k = 0; k < n && !err; k++) {
			err = encode_one(r[k].set, r[k].from, r[k].to, f, out->cache, &out->raw, NULL);
			if (!err)
				err = append_bytes(&out->joined, out->raw.data, out->raw.len);
		}
		raw = &out->joined;
	}
	return err ? err : compress_payload(raw, nr_samples, f, c, out);
}

/* @lim with its defaults for what it leaves 0. */
static void limits_of(const struct batch_limits *lim, size_t *max_samples, size_t *max_bytes)
{
	*max_samples = lim->max_samples ? lim->max_samples : BATCH_DEFAULT_MAX_SAMPLES;
	*max_bytes = lim->max_bytes ? lim->max_bytes : BATCH_DEFAULT_MAX_BYTES;
}

/*
 * batch_item_size() of item @i, from @run_base: a cgroup's items differ in
 * their __name__ only, so the rest is sized once per cgroup run (0 in
 * @run_base until then).
 */
static size_t item_size(const struct series_set *set, size_t i, enum wire_format f, uint32_t *run_base)
{
	const struct series_item *it = &set->items[i];

	if (it->cgroup_run == SERIES_OWN_RUN)
		return batch_item_size(set, i, f);
	if (!run_base[it->cgroup_run])
		run_base[it->cgroup_run] = (uint32_t)(batch_item_size(set, i, f) - it->name_len);
	return run_base[it->cgroup_run] + it->name_len;
}

/* What becomes of a request's ranges once cut: encode_request(), or join_range(). */
typedef int (*request_fn)(const struct range *r, size_t n, enum wire_format f, enum compression c,
			  const struct batch_limits *lim, struct payload_list *out);

/* Cuts the items of @sets, in order, into requests within @lim, each handed to @request; see batch_encode_sets(). */
static int pack_sets(const struct series_set *const *sets, size_t nr_sets, enum wire_format f,
		     enum compression c, const struct batch_limits *lim, struct payload_list *out,
		     request_fn request)
{
	size_t max_samples, max_bytes, samples = 0, bytes = 0, nr = 0;
	uint32_t *run_base = NULL;
	struct range *r;
	int err = 0;

	limits_of(lim, &max_samples, &max_bytes);
	r = calloc(nr_sets, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (size_t s = 0; s < nr_sets && !err; s++) {
		const struct series_set *set = sets[s];

		free(run_base);
		run_base = calloc(set->nr_cgroup_runs ? set->nr_cgroup_runs : 1, sizeof(*run_base));
		if (!run_base) {
			err = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < set->nr_items && !err; i++) {
			size_t sz = item_size(set, i, f, run_base);

			if (samples && (samples == max_samples || bytes + sz > max_bytes)) {
				err = request(r, nr, f, c, lim, out);
				samples = bytes = nr = 0;
			}
			if (!nr || r[nr - 1].set != set)
				r[nr++] = (struct range){ set, i, i };
			r[nr - 1].to = i + 1;
			samples++;
			bytes += sz;
		}
	}
	if (!err && samples)
		err = request(r, nr, f, c, lim, out);
	free(run_base);
	free(r);
	return err;
}

/* Whether @out keeps the requests of @set's shape, cut by the same limits. */
static bool kept_fits(const struct kept_requests *k, const struct series_set *set, enum wire_format f,
		      enum compression c, const struct batch_limits *lim)
{
	return k->shape && k->shape == set->shape && k->format == f && k->compression == c &&
	       k->max_samples == lim->max_samples && k->max_bytes == lim->max_bytes;
}

/*
 * Kept request @i with @set's samples: patched, or encoded again where its
 * layout changed (a value became 0 or stopped being 0). The label cache
 * holds the shape's series already: no pass.
 */
static int refresh_kept(const struct series_set *set, enum wire_format f, struct payload_list *out, size_t i)
{
	struct kept_request *r = &out->kept.req[i];

	return kept_request_patch(r, set) ? 0 : encode_kept(set, r->from, r->to, f, out, i);
}

/* The steady state: each kept request refreshed with @set's samples and sent as it is. */
static int encode_patched(const struct series_set *set, enum wire_format f, enum compression c,
			  struct payload_list *out)
{
	for (size_t i = 0; i < out->kept.nr; i++) {
		int err = refresh_kept(set, f, out, i);

		if (!err)
			err = kept_payload(&out->kept.req[i], f, c, out);
		if (err) {
			kept_requests_clear(&out->kept);
			return err;
		}
	}
	return 0;
}

/* A varint of a length at most: the room a joined snappy block keeps before its elements. */
#define JOIN_LEN_ROOM 10

/* Forgets the request batch_join() was gathering (sent, lost with an error, or cleared). */
static void join_drop(struct payload_list *out)
{
	out->join = (struct joined){ 0 };
	out->joined.len = 0;
}

/* The request batch_join() has gathered (out->join), as a payload of @out; the join is empty after. */
static int flush_joined(enum wire_format f, enum compression c, struct payload_list *out)
{
	const struct joined *j = &out->join;
	struct payload p = { .format = f, .compression = c, .nr_samples = j->samples, .raw_len = j->raw_len };
	struct byte_buf *z;
	uint64_t cpu;
	int err;

	if (!j->samples)
		return 0;
	if (j->stream) {
		err = stream_end(out, c, j->samples, j->raw_len);
		goto empty;
	}
	if (!j->snappy) {
		err = compress_payload(&out->joined, j->samples, f, c, out);
		goto empty;
	}
	cpu = thread_cpu_ns();
	z = body_buf(out, out->n);
	if (z) {
		/*
		 * A block: the length of what it decompresses to, in the room left
		 * before the elements, then the elements. The body slot takes the
		 * joined bytes as they lie, and the join its room.
		 */
		uint8_t len[JOIN_LEN_ROOM];
		size_t k = (size_t)(pb_varint(len, j->raw_len) - len);
		struct byte_buf room = *z;

		memcpy(out->joined.data + JOIN_LEN_ROOM - k, len, k);
		*z = out->joined;
		out->joined = room;
		p.body = z->data + JOIN_LEN_ROOM - k;
		p.len = z->len - (JOIN_LEN_ROOM - k);
		err = push_payload(out, &p);
	} else {
		err = -ENOMEM;
	}
	out->compress_cpu_ns += thread_cpu_ns() - cpu;
empty:
	join_drop(out);
	return err;
}

/* Appends kept request @r, patched, to the request @j gathers; sends that first when @r would not fit. */
static int join_kept(struct joined *j, struct kept_request *r, enum wire_format f, enum compression c,
		     const struct batch_limits *lim, struct payload_list *out)
{
	size_t samples = r->to - r->from, skip = 0, max_samples, max_bytes;
	const struct byte_buf *block = NULL;
	uint64_t cpu;
	int err = 0;

	limits_of(lim, &max_samples, &max_bytes);
	if (c == COMPRESSION_SNAPPY)
		block = kept_request_block(r); /* patching: encoding */
	if (j->samples && (j->snappy != !!block || j->samples + samples > max_samples ||
			   j->raw_len + r->raw_len > max_bytes))
		err = flush_joined(f, c, out); /* counts its own CPU */
	if (err)
		return err;
	cpu = thread_cpu_ns();
	if (!j->samples && block) {
		/* room for the block's length, written when the request is complete */
		err = byte_buf_reserve(&out->joined, JOIN_LEN_ROOM);
		if (err)
			return err;
		out->joined.len = JOIN_LEN_ROOM;
	}
	j->snappy = block != NULL;
	if (block) {
		/*
		 * Without its length: a copy counts its offset back from where it
		 * lies, so blocks' elements one after another decompress to their
		 * protobufs one after another.
		 */
		while (skip < block->len && block->data[skip] & 0x80)
			skip++;
		err = append_bytes(&out->joined, block->data + skip + 1, block->len - skip - 1);
	} else {
		err = append_bytes(&out->joined, r->raw.data, r->raw.len);
	}
	j->samples += samples;
	j->raw_len += r->raw_len;
	out->compress_cpu_ns += thread_cpu_ns() - cpu;
	return err;
}

/*
 * The start of an OTLP range joined to the request under way: that
 * request is sent first when the range would not fit in it, and a new
 * one begun.
 */
static int join_start(void *ctx, size_t total)
{
	struct otlp_stream *s = ctx;
	struct joined *j = &s->out->join;
	size_t max_samples, max_bytes;
	int err = 0;

	limits_of(s->lim, &max_samples, &max_bytes);
	if (j->samples && (j->samples + s->samples > max_samples || j->raw_len + total > max_bytes))
		err = flush_joined(WIRE_OTLP, s->c, s->out);
	if (!err && !j->samples)
		err = stream_begin(s->out, s->c, COMPRESS_TOTAL_UNKNOWN);
	if (err)
		return err;
	*j = (struct joined){ .samples = j->samples + s->samples, .raw_len = j->raw_len + total, .stream = true };
	return 0;
}

/* An OTLP request's range (@n is 1: one set) encoded into the joined request's stream. */
static int join_range(const struct range *r, size_t n, enum wire_format f, enum compression c,
		      const struct batch_limits *lim, struct payload_list *out)
{
	struct otlp_stream s = { .out = out, .c = c, .lim = lim, .samples = r[0].to - r[0].from };
	const struct piece_sink sink = { join_start, stream_put, &s };

	(void)n;
	(void)f;
	return otlp_encode(r[0].set, r[0].from, r[0].to, out->cache, &out->otlp, &sink);
}

/* OTLP's join: @set encoded anew, and streamed into the joined requests. */
static int join_otlp(const struct series_set *set, enum compression c, const struct batch_limits *lim,
		     struct payload_list *out)
{
	int err;

	if (!out->cache && !(out->cache = label_cache_new()))
		return -ENOMEM;
	label_cache_begin_pass(out->cache);
	err = pack_sets(&set, 1, WIRE_OTLP, c, lim, out, join_range);
	label_cache_end_pass(out->cache);
	if (err)
		join_drop(out);
	return err;
}

int batch_join(const struct series_set *set, enum wire_format f, enum compression c,
	       const struct batch_limits *lim, struct payload_list *out)
{
	int err = 0;

	c = compression_effective(f, c);
	if (f == WIRE_OTLP)
		return join_otlp(set, c, lim, out);
	if (f == WIRE_REMOTE_WRITE_V2 || !kept_fits(&out->kept, set, f, c, lim))
		return -ESTALE;
	for (size_t i = 0; i < out->kept.nr && !err; i++) {
		err = refresh_kept(set, f, out, i);
		if (!err)
			err = join_kept(&out->join, &out->kept.req[i], f, c, lim, out);
	}
	if (err) {
		kept_requests_clear(&out->kept);
		join_drop(out);
	}
	return err;
}

int batch_join_flush(enum wire_format f, enum compression c, struct payload_list *out)
{
	return flush_joined(f, compression_effective(f, c), out);
}

/* Encodes @sets from their labels; keeps the requests when they are of one set of a known shape. */
static int encode_fresh(const struct series_set *const *sets, size_t nr_sets, enum wire_format f,
			enum compression c, const struct batch_limits *lim, struct payload_list *out)
{
	int err = 0;

	kept_requests_clear(&out->kept);
	/* OTLP keeps none: each interval's requests are encoded anew (otlp_request()) */
	if (nr_sets == 1 && sets[0]->shape && f != WIRE_OTLP)
		out->kept = (struct kept_requests){ .shape = sets[0]->shape, .format = f, .compression = c,
						    .max_samples = lim->max_samples, .max_bytes = lim->max_bytes,
						    .recording = true };
	label_cache_begin_pass(out->cache);
	if (f != WIRE_REMOTE_WRITE_V2)
		err = pack_sets(sets, nr_sets, f, c, lim, out, encode_request);
	/* 2.0's symbol table is per request: intervals are not joined */
	for (size_t s = 0; f == WIRE_REMOTE_WRITE_V2 && s < nr_sets && !err; s++)
		err = pack_sets(&sets[s], 1, f, c, lim, out, encode_request);
	label_cache_end_pass(out->cache);
	out->kept.recording = false;
	if (err)
		kept_requests_clear(&out->kept);
	return err;
}

int batch_encode_sets(const struct series_set *const *sets, size_t nr_sets, enum wire_format f,
		      enum compression c, const struct batch_limits *lim, struct payload_list *out)
{
	int err;

	if (!out->cache && !(out->cache = label_cache_new()))
		return -ENOMEM;
	c = compression_effective(f, c);
	if (nr_sets == 1 && kept_fits(&out->kept, sets[0], f, c, lim))
		err = encode_patched(sets[0], f, c, out);
	else
		err = encode_fresh(sets, nr_sets, f, c, lim, out);
	/* the kept requests are what the next interval needs: no spare protobuf beside them */
	if (out->kept.nr)
		byte_buf_free(&out->raw);
	return err;
}

int batch_encode(const struct series_set *set, enum wire_format f, enum compression c,
		 const struct batch_limits *lim, struct payload_list *out)
{
	return batch_encode_sets(&set, 1, f, c, lim, out);
}

void payload_list_clear(struct payload_list *l)
{
	l->n = 0;
	join_drop(l);
}

void payload_list_free(struct payload_list *l)
{
	payload_list_clear(l);
	for (size_t i = 0; i < l->nr_bodies; i++)
		byte_buf_free(&l->bodies[i]);
	free(l->bodies);
	l->bodies = NULL;
	l->nr_bodies = 0;
	byte_buf_free(&l->raw);
	byte_buf_free(&l->joined);
	label_cache_free(l->cache);
	l->cache = NULL;
	kept_requests_clear(&l->kept);
	compressor_free(&l->compressor);
	otlp_work_free(&l->otlp);
	free(l->p);
	l->p = NULL;
	l->cap = 0;
}
