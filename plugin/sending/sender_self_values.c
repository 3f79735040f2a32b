// SPDX-License-Identifier: GPL-2.0-only
#include "sending/sender_self_values.h"

_Static_assert(DROP_NR <= SELF_MAX_DROP_REASONS, "raise SELF_MAX_DROP_REASONS");
_Static_assert(SENDER_CPU_NR <= SELF_MAX_CPU_STAGES, "raise SELF_MAX_CPU_STAGES");

void self_values_from_sender(struct self_values *v, const struct sender_stats *st)
{
	v->sending = true;
	v->batches_sent = st->batches_sent;
	v->samples_sent = st->samples_sent;
	v->retries = st->retries;
	v->bytes_sent = st->bytes_sent;
	v->nr_drop_reasons = DROP_NR;
	for (int r = 0; r < DROP_NR; r++) {
		v->drop_reasons[r] = drop_reason_name(r);
		v->dropped_batches[r] = st->dropped_batches[r];
		v->dropped_samples[r] = st->dropped_samples[r];
	}
	v->last_send_latency_s = st->last_latency_s;
	v->queue_length = st->queued;
	v->spool_batches = st->spool_batches;
	v->spool_bytes = st->spool_bytes;
	v->nr_cpu_stages = SENDER_CPU_NR;
	for (int c = 0; c < SENDER_CPU_NR; c++) {
		v->cpu_stages[c] = sender_cpu_name(c);
		v->sender_cpu_s[c] = (double)st->cpu_ns[c] / 1e9;
	}
}
