// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_GET_RANDOM_U32_BELOW: get_random_u32_below() and
 * get_random_u32_inclusive(), the bounded random helpers of v6.2 ("random:
 * add helpers for random numbers with given floor or range"); Debian's
 * 6.1 has them from the stable series, hence a probe, not a version.
 */
#include <linux/random.h>

u32 pg_probe(u32 n);
u32 pg_probe(u32 n)
{
	return get_random_u32_below(n) + get_random_u32_inclusive(1, n);
}
