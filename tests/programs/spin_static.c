// SPDX-License-Identifier: GPL-3.0-or-later
/* A static program that spins in `jmp .` forever: recorded with
 * --max-insns, its stream cut after the TIP.PGE leaves the decoder in a
 * loop that consumes no trace (tests/e2e: the replay engine must end it).
 */
void _start(void);
void _start(void)
{
	__asm__ volatile("1: jmp 1b");
}
