// SPDX-License-Identifier: GPL-2.0-only
#include "base/siphash.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"

static struct siphash_key process_key;
static pthread_once_t process_key_once = PTHREAD_ONCE_INIT;

static bool read_urandom(void *buf, size_t len)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = read(fd, buf, len) == (ssize_t)len;
	close(fd);
	return ok;
}

static void draw_process_key(void)
{
	struct timespec ts;
	int err;

	/* GRND_NONBLOCK: an agent started early at boot must not wait for the pool */
	if (getrandom(&process_key, sizeof(process_key), GRND_NONBLOCK) == (ssize_t)sizeof(process_key))
		return;
	err = errno;
	if (read_urandom(&process_key, sizeof(process_key)))
		return;
	/* no randomness at all: still a key unknown in advance, but guessable */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	process_key.k0 ^= (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)ts.tv_sec;
	process_key.k1 ^= (uint64_t)getpid() * 0xc2b2ae3d27d4eb4fULL ^ (uint64_t)(uintptr_t)&ts;
	mb_warn("no random bytes for the series keys (getrandom: %s; /dev/urandom unreadable): "
		"using a clock-based key, which a local user could guess",
		strerror(err));
}

const struct siphash_key *siphash_process_key(void)
{
	pthread_once(&process_key_once, draw_process_key);
	return &process_key;
}

static inline uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static inline void sip_round(struct siphash *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = rotl(s->v2, 32);
}

static inline void sip_compress(struct siphash *s, uint64_t m, unsigned int c_rounds)
{
	s->v3 ^= m;
	for (unsigned int i = 0; i < c_rounds; i++)
		sip_round(s);
	s->v0 ^= m;
}

static void sip_init(struct siphash *s, const struct siphash_key *k, bool wide)
{
	s->v0 = k->k0 ^ 0x736f6d6570736575ULL;
	s->v1 = k->k1 ^ 0x646f72616e646f6dULL ^ (wide ? 0xee : 0);
	s->v2 = k->k0 ^ 0x6c7967656e657261ULL;
	s->v3 = k->k1 ^ 0x7465646279746573ULL;
}

static uint64_t sip_final(struct siphash *s, unsigned int d_rounds)
{
	for (unsigned int i = 0; i < d_rounds; i++)
		sip_round(s);
	return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

uint64_t siphash_bytes(const struct siphash_key *k, const void *data, size_t len, unsigned int c_rounds,
		       unsigned int d_rounds)
{
	const unsigned char *p = data;
	struct siphash s;
	uint64_t m, tail = (uint64_t)len << 56;
	size_t i = 0;

	sip_init(&s, k, false);
	for (; i + 8 <= len; i += 8) {
		memcpy(&m, p + i, 8);
		sip_compress(&s, le64toh(m), c_rounds);
	}
	for (size_t b = 0; i + b < len; b++)
		tail |= (uint64_t)p[i + b] << (8 * b);
	sip_compress(&s, tail, c_rounds);
	s.v2 ^= 0xff;
	return sip_final(&s, d_rounds);
}

void siphash_begin(struct siphash *s, const struct siphash_key *k)
{
	sip_init(s, k, true);
}

void siphash_word(struct siphash *s, uint64_t m)
{
	sip_compress(s, m, 1);
}

void siphash_end128(struct siphash s, uint64_t *lo, uint64_t *hi)
{
	s.v2 ^= 0xee;
	*lo = sip_final(&s, 3);
	s.v1 ^= 0xdd;
	*hi = sip_final(&s, 3);
}
