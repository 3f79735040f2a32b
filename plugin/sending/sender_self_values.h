/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sender's part of the self values (series/self_metrics.h), from its
 * stats. Used by the collectd glue and by tests/sender/ship-fake, which
 * drives the sender without collectd.
 */
#ifndef MEMCG_BPF_SENDER_SELF_VALUES_H
#define MEMCG_BPF_SENDER_SELF_VALUES_H

#include "sending/sender.h"
#include "series/self_metrics.h"

/* Fills the sender's fields of @v from @st and sets v->sending. */
void self_values_from_sender(struct self_values *v, const struct sender_stats *st);

#endif
