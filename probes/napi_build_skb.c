// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_NAPI_BUILD_SKB: napi_build_skb(), "skbuff: introduce
 * {,__}napi_build_skb() which reuses NAPI cache heads" (v5.12).
 */
#include <linux/skbuff.h>

struct sk_buff *pg_probe(void *data, unsigned int size);
struct sk_buff *pg_probe(void *data, unsigned int size)
{
	return napi_build_skb(data, size);
}
