// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_LOCKDEP_ASSERT_IN_SOFTIRQ: lockdep_assert_in_softirq(),
 * "lockdep: Introduce in_softirq lockdep assert" (v5.15).
 */
#include <linux/lockdep.h>

void pg_probe(void);
void pg_probe(void)
{
	lockdep_assert_in_softirq();
}
