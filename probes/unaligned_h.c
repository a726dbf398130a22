// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_UNALIGNED_H: <linux/unaligned.h>, moved from <asm/unaligned.h> by
 * "move asm/unaligned.h to linux/unaligned.h" (v6.12).
 */
#include <linux/unaligned.h>

u16 pg_probe(const void *p);
u16 pg_probe(const void *p)
{
	return get_unaligned_be16(p);
}
