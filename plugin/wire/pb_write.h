/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Writing protobuf wire format by hand, for the encoders (remote write 1.0
 * and 2.0, OTLP): varints, tags, length-delimited fields and fixed64 doubles,
 * written from the protobuf encoding specification. The caller sizes the
 * buffer first (pb_*_size) and then writes; field order and the proto3 rule
 * "a scalar equal to its zero value is not written" are the caller's, and
 * tests/unit/test_batch_encode.c checks the bytes against protobuf-c's
 * packing of the same message.
 */
#ifndef MEMCG_BPF_PB_WRITE_H
#define MEMCG_BPF_PB_WRITE_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum pb_wire_type {
	PB_VARINT = 0,
	PB_FIXED64 = 1,
	PB_LEN = 2,
};

static inline size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static inline uint8_t *pb_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Fields numbered below 16 only: their tag is one byte. */
static inline uint8_t *pb_tag(uint8_t *p, unsigned int field, enum pb_wire_type wt)
{
	*p++ = (uint8_t)(field << 3 | wt);
	return p;
}

/* Bytes of a length-delimited field (one-byte tag) holding @len bytes. */
static inline size_t pb_len_field_size(size_t len)
{
	return 1 + pb_varint_size(len) + len;
}

static inline uint8_t *pb_len_field(uint8_t *p, unsigned int field, const void *data, size_t len)
{
	p = pb_tag(p, field, PB_LEN);
	p = pb_varint(p, len);
	memcpy(p, data, len);
	return p + len;
}

/* The header of a length-delimited field whose @len bytes follow. */
static inline uint8_t *pb_len_header(uint8_t *p, unsigned int field, size_t len)
{
	return pb_varint(pb_tag(p, field, PB_LEN), len);
}

static inline uint8_t *pb_fixed64(uint8_t *p, unsigned int field, uint64_t v)
{
	uint64_t le = htole64(v); /* little endian on the wire: one store, not eight */

	p = pb_tag(p, field, PB_FIXED64);
	memcpy(p, &le, sizeof(le));
	return p + sizeof(le);
}

static inline uint8_t *pb_double(uint8_t *p, unsigned int field, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return pb_fixed64(p, field, bits);
}

#endif
