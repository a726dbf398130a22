// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_HEX_H: <linux/hex.h>, hex2bin() and friends split out of
 * <linux/kernel.h> (v6.12 has the header; 7.2's <linux/kernel.h> no
 * longer includes it).
 */
#include <linux/hex.h>

int pg_probe(u8 *dst, const char *src);
int pg_probe(u8 *dst, const char *src)
{
	return hex2bin(dst, src, 1);
}
