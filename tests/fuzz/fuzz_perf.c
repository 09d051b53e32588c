// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * libFuzzer harness for the perf.data reader of `ptrec import perf`.
 *
 * Runs everything the importer does before writing a bundle on the input:
 * the header, attrs and feature sections, every record of the data
 * section, joining the AUX data, splitting per-cpu buffers into thread
 * streams at PSBs and switch records, and ordering the sideband.  The
 * input must be refused (-1) or accepted (0), never crash, read out of
 * bounds, leak or hang.  Seeds are perf.data files mkperf writes around the
 * recorded fuzz bundle (tests/fuzz/mkseeds.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t nthreads = 0, nevents = 0;
	int ret = import_perf_parse_mem(data, size, true, &nthreads, &nevents);

	if (ret != 0 && ret != -1) {
		fprintf(stderr, "import_perf_parse_mem returned %d\n", ret);
		abort();
	}
	/* Every accepted file had AUX data; events are bounded by records. */
	if (!ret && nevents > size) {
		fprintf(stderr, "%zu events from %zu bytes\n", nevents, size);
		abort();
	}
	return 0;
}
