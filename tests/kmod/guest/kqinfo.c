// SPDX-License-Identifier: GPL-3.0-or-later
/* kqinfo: prints PTREC_IOC_INFO of /dev/ptrec, one "key value" a line. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "uapi/ptrec.h"

int main(void)
{
	struct ptrec_info i = {
		.size = sizeof(i), .version = PTREC_UAPI_VERSION,
	};
	int fd = open(PTREC_DEVICE, O_RDONLY);

	if (fd < 0 || ioctl(fd, PTREC_IOC_INFO, &i)) {
		perror("kqinfo: " PTREC_DEVICE);
		return 1;
	}
	printf("simulated %d\nxsaves %d\nflags 0x%x\nnr_addr_ranges %u\n"
	       "psb_periods 0x%x\nmtc_periods 0x%x\nxsave_size %u\n"
	       "family %u\nmodel %u\ntsc_khz %llu\n",
	       !!(i.flags & PTREC_INFO_SIMULATED),
	       !!(i.flags & PTREC_INFO_XSAVES), i.flags, i.nr_addr_ranges,
	       i.psb_periods, i.mtc_periods, i.xsave_size, i.family, i.model,
	       (unsigned long long)i.tsc_khz);
	close(fd);
	return 0;
}
