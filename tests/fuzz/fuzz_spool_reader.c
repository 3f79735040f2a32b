// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the spool reader on arbitrary segment bytes. Whatever
 * the input, the reader must stay inside it, keep only whole records (going
 * on after damaged ones), and give the same records for the prefix that
 * ends after the last good one.
 */
#include <stdint.h>
#include <stdlib.h>

#include "base/log.h"
#include "sending/spool.h"

static void quiet(int level, const char *msg)
{
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spool_scan a, b;

	mb_log_set_sink(quiet);
	spool_scan_buffer(data, size, &a);
	if (a.good_end > size || a.pending > a.records)
		abort();
	if (a.bad == SPOOL_BAD_HEADER) {
		if (a.records)
			abort();
		return 0;
	}
	if (a.good_end < SPOOL_FILE_HEADER || (a.bad == SPOOL_BAD_NONE && a.good_end != size))
		abort();
	if ((a.bad == SPOOL_BAD_NONE) != (a.damaged == 0) || a.damaged_samples > UINT64_C(0xffffffff) * a.damaged)
		abort();
	/* the prefix up to the last good record reads back with the same records */
	spool_scan_buffer(data, a.good_end, &b);
	if (b.records != a.records || b.pending != a.pending || b.pending_samples != a.pending_samples ||
	    b.good_end != a.good_end || b.damaged > a.damaged)
		abort();
	return 0;
}
