// SPDX-License-Identifier: GPL-2.0
/*
 * pf_ipoption: the PF_IPOPTION socket family of the PF_IPOPTION memo (Bell
 * Labs, 2000), in Linux terms (Documentation/ipoption-sock.rst).
 *
 * socket(PF_IPOPTION, SOCK_RAW, type) subscribes a process to the IPv4
 * packets of its namespace that carry the option @type (0: any option);
 * recvmsg() returns each whole, with its ingress ifindex as an
 * (IPPROTO_IP, IP_RECVIF) control message on request.
 *
 * Where packets are taken:
 *  - NF_INET_FORWARD, after the filter table: a packet the kernel is about
 *    to forward (ip_forward on, its options accepted by
 *    ip_options_compile(), the FORWARD chain passed) that carries a
 *    subscribed type is copied to every listening socket and, if at least
 *    one copy was queued, stolen: the listener forwards it (reinjects it
 *    with an IP_HDRINCL raw socket).  GSO packets, packets reassembled by
 *    conntrack and packets longer than the egress MTU are never taken: a
 *    raw socket could not send them again.
 *  - NF_INET_LOCAL_IN and NF_INET_LOCAL_OUT: copies of local traffic for
 *    sockets with IPOPT_RECVLOCAL, never stolen.
 *
 * Cost: the hooks are registered in a namespace with its first socket and
 * stay until the namespace goes (an unregistration would drop what other
 * hooks of the namespace hold in NFQUEUEs).  A packet without options
 * costs one test of its IHL; one with options one AND of the namespace's
 * subscribed types (read with READ_ONCE) until one matches.
 *
 * Lifetime: a socket is on one RCU list of its namespace, by type; close
 * unlinks it, clears its type's bit once it was the last (forwarding is
 * restored at once) and waits for hooks in flight before freeing it.  A
 * user socket holds a reference on its namespace (sk_alloc()), the module
 * a reference for each socket (.owner), so neither the namespace's state
 * nor the module goes while one is open.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/netfilter.h>
#include <linux/netfilter_bridge.h>
#include <linux/netfilter_ipv4.h>
#include <linux/rculist.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>

#include "../pktgen_compat.h"
#include "../include/uapi/linux/pf_ipoption.h"
#include "ipoption.h"

/*
 * PF_IPOPTION (25) is AF_WANPIPE, reserved for Sangoma's WANPIPE drivers,
 * which never had a socket family in the kernel: no in-tree module takes
 * it, and glibc's names make no other use of it.  sock_register() refuses
 * a number in use, so a clash fails the load, never a family.
 */
static int ipo_sk_family_nr = PF_IPOPTION;
module_param_named(family, ipo_sk_family_nr, int, 0444);
MODULE_PARM_DESC(family, "Number of the PF_IPOPTION socket family (25)");

/*
 * After every other hook but conntrack's confirmation: what any FORWARD,
 * INPUT or OUTPUT rule drops (the filter and security tables, firewalld's
 * chains at filter + 10, later nft chains) is never stolen or copied.
 */
#define IPO_SK_PRIORITY		(NF_IP_PRI_LAST - 1)

/* po->flags: the socket options */
#define IPO_SK_LOCAL		BIT(0)	/* IPOPT_RECVLOCAL */
#define IPO_SK_RA		BIT(1)	/* IPOPT_RECVRA */
#define IPO_SK_RSVP		BIT(2)	/* IP_RECVRSVP */
#define IPO_SK_RTCP		BIT(3)	/* IP_RECVRTCP */
#define IPO_SK_IF		BIT(4)	/* IP_RECVIF */
#define IPO_SK_RA_FILTER	(IPO_SK_RA | IPO_SK_RSVP | IPO_SK_RTCP)

/* What recvmsg() takes: a raw socket's flags (MSG_CMSG_COMPAT: compat syscalls) */
#define IPO_SK_RECV_FLAGS	(MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC | MSG_CMSG_CLOEXEC | \
				 MSG_WAITALL | MSG_NOSIGNAL | MSG_CMSG_COMPAT)

enum { IPO_SK_HOOK_FORWARD, IPO_SK_HOOK_IN, IPO_SK_HOOK_OUT, IPO_SK_NHOOKS };

/* One namespace's sockets. */
struct ipo_sock_net {
	struct net *net;
	struct mutex lock;		/* lists, counts, masks, hook registration */
	/* BIT(type) with at least one socket, read per packet */
	u32 types;
	/* the same for sockets with IPOPT_RECVLOCAL */
	u32 local_types;
	bool hooked;
	unsigned int nsocks[IPO_NTYPES];
	unsigned int nlocal[IPO_NTYPES];
	struct hlist_head socks[IPO_NTYPES];	/* RCU */
	struct nf_hook_ops ops[IPO_SK_NHOOKS];
};

struct ipo_sk_sock {
	struct sock sk;			/* first: sk_alloc() sizes by obj_size */
	struct hlist_node node;		/* on ipn->socks[type], under ipn->lock */
	struct ipo_sock_net *ipn;
	enum ipo_type type;	/* from the protocol argument */
	u32 flags;			/* IPO_SK_*, written under ipn->lock */
};

/* A queued copy's ingress ifindex; the start of cb (sock_skb_cb is at its end). */
struct ipo_sk_cb {
	int ifindex;
};

#define IPO_SK_CB(skb)	((struct ipo_sk_cb *)(skb)->cb)

static unsigned int ipo_sk_net_id __read_mostly;

static struct ipo_sk_sock *ipo_sk_sk(struct sock *sk)
{
	return container_of(sk, struct ipo_sk_sock, sk);
}

/* ---- packet path ------------------------------------------------------------- */

/*
 * BIT(type) of each option the packet carries, IPO_ANY included;
 * 0 for options that do not parse (length or pointer out of range: the
 * walk never reads past IHL * 4 bytes).
 */
static u32 ipo_sk_pkt_types(struct sk_buff *skb)
{
	struct ipo_pkt p = { .seen = 0 };
	unsigned int hlen = ip_hdr(skb)->ihl * 4;

	if (hlen <= sizeof(struct iphdr) || !pskb_may_pull(skb, hlen))
		return 0;
	ipo_parse((const u8 *)(ip_hdr(skb) + 1), hlen - sizeof(struct iphdr), &p);
	if (p.seen & BIT(IPO_MALFORMED))
		return 0;
	if (p.seen & BIT(IPO_RA_OTHER))
		p.seen |= BIT(IPO_RA);
	return p.seen | BIT(IPO_ANY);
}

/* RTCP (RFC 3550): version 2, packet type 200-204, first in a UDP datagram. */
static bool ipo_sk_is_rtcp(const struct sk_buff *skb)
{
	const struct iphdr *iph = ip_hdr(skb);
	const u8 *h;
	u8 buf[2];

	if (iph->protocol != IPPROTO_UDP || ip_is_fragment(iph))
		return false;
	h = skb_header_pointer(skb, iph->ihl * 4 + sizeof(struct udphdr), sizeof(buf), buf);
	return h && (h[0] >> 6) == 2 && h[1] >= 200 && h[1] <= 204;
}

/* IPOPT_RECVRA, IP_RECVRSVP and IP_RECVRTCP select among router alert packets. */
static bool ipo_sk_ra_wanted(const struct sk_buff *skb, u32 flags, u32 pkt)
{
	if (!(pkt & BIT(IPO_RA)) || !(flags & IPO_SK_RA_FILTER) || (flags & IPO_SK_RA))
		return true;
	if ((flags & IPO_SK_RSVP) && ip_hdr(skb)->protocol == IPPROTO_RSVP)
		return true;
	return (flags & IPO_SK_RTCP) && ipo_sk_is_rtcp(skb);
}

/*
 * A private linear copy whose checksums are final: a CHECKSUM_PARTIAL
 * packet (sent by this host, or by a veth peer) has its transport
 * checksum filled in here, and the IP header's is recomputed (input
 * writes a record route slot or timestamp before FORWARD and leaves the
 * checksum to ip_forward_options()).  No dst, conntrack entry or
 * extension stays with it in a socket's queue.
 */
static struct sk_buff *ipo_sk_copy(const struct sk_buff *skb, int ifindex)
{
	struct sk_buff *c = skb_copy(skb, GFP_ATOMIC);
	int start;

	if (!c)
		return NULL;
	skb_dst_drop(c);
	nf_reset_ct(c);
	skb_ext_reset(c);
	if (c->ip_summed == CHECKSUM_PARTIAL) {
		/* skb_checksum_help() warns on offsets out of the data */
		start = skb_checksum_start_offset(c);
		if (skb_csum_is_sctp(c) || start < 0 ||
		    start + c->csum_offset + sizeof(__sum16) > skb_headlen(c) ||
		    skb_checksum_help(c)) {
			kfree_skb(c);
			return NULL;
		}
	}
	ip_send_check(ip_hdr(c));
	/* a sent packet may carry a departure time (TCP, SO_TXTIME) */
	__net_timestamp(c);
	IPO_SK_CB(c)->ifindex = ifindex;
	return c;
}

/*
 * A copy to each socket of the @match types (@local: those with
 * IPOPT_RECVLOCAL only) that wants it; the number queued.  Under the
 * hook's rcu_read_lock(): a closing socket waits for us (synchronize_net()).
 */
static unsigned int ipo_sk_deliver(struct ipo_sock_net *ipn, struct sk_buff *skb, u32 pkt,
				   u32 match, bool local, int ifindex)
{
	unsigned long bits = match;
	struct sk_buff *copy = NULL, *c;
	struct ipo_sk_sock *po;
	unsigned int queued = 0;
	u32 flags;
	int t;

	for_each_set_bit(t, &bits, IPO_NTYPES) {
		hlist_for_each_entry_rcu(po, &ipn->socks[t], node) {
			flags = READ_ONCE(po->flags);
			if (local && !(flags & IPO_SK_LOCAL))
				continue;
			if (!ipo_sk_ra_wanted(skb, flags, pkt))
				continue;
			if (!copy)
				copy = ipo_sk_copy(skb, ifindex);
			c = copy ? skb_clone(copy, GFP_ATOMIC) : NULL;
			if (!c) {
				pg_sk_drops_inc(&po->sk);
				continue;
			}
			/* counts its own drops (rcvbuf full) */
			if (sock_queue_rcv_skb(&po->sk, c))
				kfree_skb(c);
			else
				queued++;
		}
	}
	consume_skb(copy);
	return queued;
}

/* The ingress interface; under a VRF the enslaved one, not the master. */
static int ipo_sk_ifindex(const struct sk_buff *skb, const struct net_device *in)
{
	if (IPCB(skb)->flags & IPSKB_L3SLAVE)
		return IPCB(skb)->iif;
	return in ? in->ifindex : 0;
}

/* A bridged frame that br_netfilter passes through the IPv4 FORWARD hook. */
static bool ipo_sk_bridged(const struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_BRIDGE_NETFILTER)
	return nf_bridge_get_physoutdev(skb);
#else
	return false;
#endif
}

/*
 * Whether a listener could send @skb again as it is (IP_HDRINCL).  Not a
 * source-routed packet at one of its hops: ip_forward_options() has yet
 * to move its destination and pointer, so sent again as it is it comes
 * back here until its TTL runs out.  Not multicast: ipmr runs FORWARD
 * once per output interface.
 */
static bool ipo_sk_stealable(const struct sk_buff *skb, const struct net_device *out)
{
	const struct dst_entry *dst = skb_dst(skb);

	if (skb_is_gso(skb) || IPCB(skb)->frag_max_size || !dst || !out ||
	    ipo_sk_bridged(skb) || skb_network_offset(skb) ||
	    IPCB(skb)->opt.srr_is_hit || ipv4_is_multicast(ip_hdr(skb)->daddr))
		return false;
	return skb->len <= min(dst_mtu(dst), READ_ONCE(out->mtu));
}

static noinline unsigned int ipo_sk_forward_slow(struct ipo_sock_net *ipn, struct sk_buff *skb,
						 const struct nf_hook_state *state, u32 want)
{
	u32 pkt, match;

	if (!ipo_sk_stealable(skb, state->out))
		return NF_ACCEPT;
	pkt = ipo_sk_pkt_types(skb);
	match = pkt & want;
	if (!match ||
	    !ipo_sk_deliver(ipn, skb, pkt, match, false, ipo_sk_ifindex(skb, state->in)))
		return NF_ACCEPT;
	consume_skb(skb);
	return NF_STOLEN;
}

static unsigned int ipo_sk_forward(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	struct ipo_sock_net *ipn = priv;
	u32 want;

	if (likely(ip_hdr(skb)->ihl == 5))
		return NF_ACCEPT;
	want = READ_ONCE(ipn->types);
	if (!want)
		return NF_ACCEPT;
	return ipo_sk_forward_slow(ipn, skb, state, want);
}

static noinline void ipo_sk_local_slow(struct ipo_sock_net *ipn, struct sk_buff *skb,
				       u32 want, int ifindex)
{
	u32 pkt, match;

	/* segmenting to copy is not worth it: documented */
	if (skb_is_gso(skb) || skb_network_offset(skb))
		return;
	pkt = ipo_sk_pkt_types(skb);
	match = pkt & want;
	if (match)
		ipo_sk_deliver(ipn, skb, pkt, match, true, ifindex);
}

static unsigned int ipo_sk_local_in(void *priv, struct sk_buff *skb,
				    const struct nf_hook_state *state)
{
	struct ipo_sock_net *ipn = priv;
	u32 want;

	if (likely(ip_hdr(skb)->ihl == 5))
		return NF_ACCEPT;
	want = READ_ONCE(ipn->local_types);
	if (want)
		ipo_sk_local_slow(ipn, skb, want, ipo_sk_ifindex(skb, state->in));
	return NF_ACCEPT;
}

static unsigned int ipo_sk_local_out(void *priv, struct sk_buff *skb,
				     const struct nf_hook_state *state)
{
	struct ipo_sock_net *ipn = priv;
	u32 want;

	if (likely(ip_hdr(skb)->ihl == 5))
		return NF_ACCEPT;
	want = READ_ONCE(ipn->local_types);
	/* a VRF runs LOCAL_OUT twice: for its master, then for the real device */
	if (want && !(state->out && netif_is_l3_master(state->out)))
		ipo_sk_local_slow(ipn, skb, want, 0);
	return NF_ACCEPT;
}

/* ---- subscriptions ------------------------------------------------------------ */

/* ipn->lock held: the masks the hooks read, from the counts. */
static void ipo_sk_masks(struct ipo_sock_net *ipn)
{
	u32 types = 0, local = 0;
	int t;

	lockdep_assert_held(&ipn->lock);
	for (t = 0; t < IPO_NTYPES; t++) {
		if (ipn->nsocks[t])
			types |= BIT(t);
		if (ipn->nlocal[t])
			local |= BIT(t);
	}
	WRITE_ONCE(ipn->types, types);
	WRITE_ONCE(ipn->local_types, local);
}

/* ipn->lock held: @po counted in (@n 1) or out (-1) with its flags. */
static void ipo_sk_count(struct ipo_sock_net *ipn, struct ipo_sk_sock *po, int n)
{
	ipn->nsocks[po->type] += n;
	if (po->flags & IPO_SK_LOCAL)
		ipn->nlocal[po->type] += n;
}

/* The namespace's hooks, from its first socket until it goes. */
static int ipo_sk_hook(struct ipo_sock_net *ipn)
{
	int err;

	lockdep_assert_held(&ipn->lock);
	if (ipn->hooked)
		return 0;
	err = nf_register_net_hooks(ipn->net, ipn->ops, ARRAY_SIZE(ipn->ops));
	if (err)
		return err;
	ipn->hooked = true;
	return 0;
}

static int ipo_sk_link(struct ipo_sk_sock *po)
{
	struct ipo_sock_net *ipn = po->ipn;
	int err;

	mutex_lock(&ipn->lock);
	err = ipo_sk_hook(ipn);
	if (!err) {
		hlist_add_head_rcu(&po->node, &ipn->socks[po->type]);
		ipo_sk_count(ipn, po, 1);
		ipo_sk_masks(ipn);
	}
	mutex_unlock(&ipn->lock);
	return err;
}

static void ipo_sk_unlink(struct ipo_sk_sock *po)
{
	struct ipo_sock_net *ipn = po->ipn;

	mutex_lock(&ipn->lock);
	hlist_del_rcu(&po->node);
	ipo_sk_count(ipn, po, -1);
	ipo_sk_masks(ipn);
	mutex_unlock(&ipn->lock);
}

/* ---- socket calls ----------------------------------------------------------------- */

static int ipo_sk_release(struct socket *sock)
{
	struct sock *sk = sock->sk;

	if (!sk)
		return 0;
	ipo_sk_unlink(ipo_sk_sk(sk));
	/* no hook in flight still holds @sk or queues to it after this */
	synchronize_net();
	sock_orphan(sk);
	sock->sk = NULL;
	skb_queue_purge(&sk->sk_receive_queue);
	sock_put(sk);
	return 0;
}

/* The IPO_SK_* flag of a socket option, 0 for none. */
static u32 ipo_sk_opt_flag(int optname)
{
	switch (optname) {
	case IPOPT_RECVLOCAL:
		return IPO_SK_LOCAL;
	case IPOPT_RECVRA:
		return IPO_SK_RA;
	case IP_RECVRSVP:
		return IPO_SK_RSVP;
	case IP_RECVRTCP:
		return IPO_SK_RTCP;
	case IP_RECVIF:
		return IPO_SK_IF;
	default:
		return 0;
	}
}

static int ipo_sk_setsockopt(struct socket *sock, int level, int optname, sockptr_t optval,
			     unsigned int optlen)
{
	struct ipo_sk_sock *po = ipo_sk_sk(sock->sk);
	struct ipo_sock_net *ipn = po->ipn;
	u32 flag = ipo_sk_opt_flag(optname);
	int val;

	if (level != SOL_IP || !flag)
		return -ENOPROTOOPT;
	if (optlen < sizeof(val))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;

	mutex_lock(&ipn->lock);
	ipo_sk_count(ipn, po, -1);
	WRITE_ONCE(po->flags, val ? po->flags | flag : po->flags & ~flag);
	ipo_sk_count(ipn, po, 1);
	ipo_sk_masks(ipn);
	mutex_unlock(&ipn->lock);
	return 0;
}

static int ipo_sk_getsockopt(struct socket *sock, int level, int optname, char __user *optval,
			     int __user *optlen)
{
	struct sock *sk = sock->sk;
	u32 flag = ipo_sk_opt_flag(optname);
	int len, val;

	if (level != SOL_IP)
		return -ENOPROTOOPT;
	if (optname == IPOPT_DROPS)
		val = pg_sk_drops_read(sk);
	else if (flag)
		val = !!(READ_ONCE(ipo_sk_sk(sk)->flags) & flag);
	else
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < (int)sizeof(val))
		return -EINVAL;
	len = sizeof(val);
	if (put_user(len, optlen) || copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
}

static int ipo_sk_recvmsg(struct socket *sock, struct msghdr *msg, size_t len, int flags)
{
	struct sock *sk = sock->sk;
	struct sk_buff *skb;
	size_t copied;
	int err, ifindex;

	if (flags & ~IPO_SK_RECV_FLAGS)
		return -EOPNOTSUPP;
	skb = pg_skb_recv_datagram(sk, flags, &err);
	if (!skb)
		return err;
	copied = skb->len;
	if (copied > len) {
		copied = len;
		msg->msg_flags |= MSG_TRUNC;
	}
	err = skb_copy_datagram_msg(skb, 0, msg, copied);
	if (err)
		goto out;
	sock_recv_timestamp(msg, sk, skb);
	if (READ_ONCE(ipo_sk_sk(sk)->flags) & IPO_SK_IF) {
		ifindex = IPO_SK_CB(skb)->ifindex;
		put_cmsg(msg, SOL_IP, IP_RECVIF, sizeof(ifindex), &ifindex);
	}
	err = flags & MSG_TRUNC ? skb->len : copied;
out:
	skb_free_datagram(sk, skb);
	return err;
}

/*
 * .family is nominal: the kernel reads a proto_ops' family only to find
 * PF_UNIX sockets (SCM_RIGHTS, the garbage collector); the number in use,
 * the module parameter's, is in net_proto_family and in every sk_family.
 */
static const struct proto_ops ipo_sk_ops = {
	.family		= PF_IPOPTION,
	.owner		= THIS_MODULE,
	.release	= ipo_sk_release,
	.bind		= sock_no_bind,
	.connect	= sock_no_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= sock_no_getname,
	.poll		= datagram_poll,
	.ioctl		= sock_no_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= sock_no_shutdown,
	.setsockopt	= ipo_sk_setsockopt,
	.getsockopt	= ipo_sk_getsockopt,
	.sendmsg	= sock_no_sendmsg,
	.recvmsg	= ipo_sk_recvmsg,
	.mmap		= sock_no_mmap,
};

static struct proto ipo_sk_proto = {
	.name		= "IPOPTION",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct ipo_sk_sock),
};

/* The socket's option type from socket()'s protocol argument. */
static int ipo_sk_type_of(int protocol)
{
	switch (protocol) {
	case 0:
		return IPO_ANY;
	case IPOPT_RR:
		return IPO_RR;
	case IPOPT_TS:
		return IPO_TS;
	case IPOPT_LSRR:
		return IPO_LSRR;
	case IPOPT_SSRR:
		return IPO_SSRR;
	case IPOPT_SEC:
		return IPO_SEC;
	case IPOPT_RA:
		return IPO_RA;
	default:
		return -EPROTONOSUPPORT;
	}
}

static void ipo_sk_destruct(struct sock *sk)
{
	skb_queue_purge(&sk->sk_receive_queue);
}

static int ipo_sk_create(struct net *net, struct socket *sock, int protocol, int kern)
{
	struct ipo_net *in = net_generic(net, ipo_sk_net_id);
	struct ipo_sk_sock *po;
	struct sock *sk;
	int type, err;

	if (sock->type != SOCK_RAW)
		return -ESOCKTNOSUPPORT;
	type = ipo_sk_type_of(protocol);
	if (type < 0)
		return type;
	/*
	 * Like raw sockets, in the initial user namespace only; and, since a
	 * socket takes forwarded packets out of the path as NFQUEUE does,
	 * CAP_NET_ADMIN too (CAP_NET_RAW alone is in containers' defaults).
	 */
	if (!kern && !(capable(CAP_NET_RAW) && capable(CAP_NET_ADMIN)))
		return -EPERM;
	if (!in->sock)
		return -EAFNOSUPPORT;

	/* a user socket holds its namespace (kern: the caller keeps it) */
	sk = sk_alloc(net, ipo_sk_family_nr, GFP_KERNEL, &ipo_sk_proto, kern);
	if (!sk)
		return -ENOMEM;
	sock->ops = &ipo_sk_ops;
	sock_init_data(sock, sk);
	sk->sk_protocol = protocol;
	sk->sk_destruct = ipo_sk_destruct;
	po = ipo_sk_sk(sk);
	po->ipn = in->sock;
	po->type = type;
	po->flags = 0;
	err = ipo_sk_link(po);
	if (err) {
		sock_orphan(sk);
		sock->sk = NULL;
		sock_put(sk);
	}
	return err;
}

static struct net_proto_family ipo_sk_family __ro_after_init = {
	.create		= ipo_sk_create,
	.owner		= THIS_MODULE,
};

/* ---- namespaces and module ---------------------------------------------------------- */

int ipo_sock_net_init(struct ipo_net *in)
{
	static const unsigned int hooknum[IPO_SK_NHOOKS] = {
		[IPO_SK_HOOK_FORWARD]	= NF_INET_FORWARD,
		[IPO_SK_HOOK_IN]	= NF_INET_LOCAL_IN,
		[IPO_SK_HOOK_OUT]	= NF_INET_LOCAL_OUT,
	};
	static nf_hookfn * const hookfn[IPO_SK_NHOOKS] = {
		[IPO_SK_HOOK_FORWARD]	= ipo_sk_forward,
		[IPO_SK_HOOK_IN]	= ipo_sk_local_in,
		[IPO_SK_HOOK_OUT]	= ipo_sk_local_out,
	};
	struct ipo_sock_net *ipn;
	int i;

	ipn = kzalloc(sizeof(*ipn), GFP_KERNEL);
	if (!ipn)
		return -ENOMEM;
	ipn->net = in->net;
	mutex_init(&ipn->lock);
	for (i = 0; i < IPO_NTYPES; i++)
		INIT_HLIST_HEAD(&ipn->socks[i]);
	for (i = 0; i < IPO_SK_NHOOKS; i++) {
		ipn->ops[i].hook = hookfn[i];
		ipn->ops[i].priv = ipn;
		ipn->ops[i].pf = NFPROTO_IPV4;
		ipn->ops[i].hooknum = hooknum[i];
		ipn->ops[i].priority = IPO_SK_PRIORITY;
	}
	in->sock = ipn;
	return 0;
}

/*
 * No user socket is left (each holds the namespace); the hooks go, which
 * waits for those in flight.
 */
void ipo_sock_net_exit(struct ipo_net *in)
{
	struct ipo_sock_net *ipn = in->sock;

	if (!ipn)
		return;
	in->sock = NULL;
	if (ipn->hooked)
		nf_unregister_net_hooks(ipn->net, ipn->ops, ARRAY_SIZE(ipn->ops));
	mutex_destroy(&ipn->lock);
	kfree(ipn);
}

/* After the pernet ops (@net_id: their id); the last step of module init. */
int ipo_sock_init(unsigned int net_id)
{
	int err;

	BUILD_BUG_ON(sizeof(struct ipo_sk_cb) > sizeof_field(struct sk_buff, cb) -
		     sizeof(struct sock_skb_cb));
	if (ipo_sk_family_nr <= 0 || ipo_sk_family_nr >= NPROTO) {
		pr_err("family=%d: a socket family number is 1-%d\n",
		       ipo_sk_family_nr, NPROTO - 1);
		return -EINVAL;
	}
	ipo_sk_net_id = net_id;
	ipo_sk_family.family = ipo_sk_family_nr;

	err = proto_register(&ipo_sk_proto, 0);
	if (err)
		return err;
	err = sock_register(&ipo_sk_family);
	if (err) {
		if (err == -EEXIST)
			pr_err("family=%d: socket family %d is taken; load with family=<a free number> (default %d)\n",
			       ipo_sk_family_nr, ipo_sk_family_nr, PF_IPOPTION);
		else
			pr_err("cannot register socket family %d (%d)\n", ipo_sk_family_nr, err);
		proto_unregister(&ipo_sk_proto);
	}
	return err;
}

/* Every socket is closed (each holds the module). */
void ipo_sock_exit(void)
{
	sock_unregister(ipo_sk_family_nr);
	proto_unregister(&ipo_sk_proto);
}
