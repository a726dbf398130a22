// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_SKB_RECV_DATAGRAM_3ARGS: skb_recv_datagram() without its noblock
 * argument (MSG_DONTWAIT in flags says it), "net: remove noblock
 * parameter from skb_recv_datagram()" (v5.19).
 */
#include <linux/skbuff.h>

struct sk_buff *pg_probe(struct sock *sk, unsigned int flags, int *err);
struct sk_buff *pg_probe(struct sock *sk, unsigned int flags, int *err)
{
	return skb_recv_datagram(sk, flags, err);
}
