/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SHA-256 (FIPS 180-4) of a byte string, for names that must stay distinct
 * even when a tenant picks cgroup names on purpose (a short non-cryptographic
 * hash could be made to collide).
 */
#ifndef MEMCG_BPF_SHA256_H
#define MEMCG_BPF_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32

void sha256(const void *data, size_t len, uint8_t digest[SHA256_DIGEST_LEN]);

#endif
