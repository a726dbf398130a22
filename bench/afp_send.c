// SPDX-License-Identifier: GPL-2.0
/*
 * afp_send: the user-space peer of the bench's start_xmit cells, what
 * trafgen-like senders do at their fastest: one prebuilt Ethernet/IPv4/
 * UDP frame sent on an AF_PACKET socket with PACKET_QDISC_BYPASS (the
 * driver's start_xmit, no qdisc) in sendmmsg(2) batches, for a time.
 *
 *	afp_send IFNAME SIZE SECONDS DST_MAC DST_IP [BATCH]
 *
 * SIZE is the frame without FCS (pktgen's pkt_size); BATCH 32 by default.
 * Prints "pps N packets N ns N errors N" (errors: frames a call did not
 * take, ENOBUFS and the like, retried), measured on CLOCK_MONOTONIC: in
 * a guest run under -icount, packets per guest second.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_BATCH 256
#define MAX_FRAME 9000

static uint16_t ip_csum(const void *p, size_t len)
{
	const uint16_t *w = p;
	uint32_t sum = 0;

	for (; len > 1; len -= 2)
		sum += *w++;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int usage(void)
{
	fprintf(stderr, "usage: afp_send IFNAME SIZE SECONDS DST_MAC DST_IP [BATCH]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static unsigned char frame[MAX_FRAME];
	struct mmsghdr msgs[MAX_BATCH];
	struct iovec iov = { frame, 0 };
	struct sockaddr_ll sll = { 0 };
	unsigned int mac[6], batch = 32, i;
	long long sent = 0, errors = 0;
	struct ether_header *eth;
	int64_t t0, end, t1;
	struct udphdr *udp;
	struct ifreq ifr;
	struct iphdr *ip;
	int fd, one = 1;
	double secs;
	size_t size;

	if (argc < 6 || argc > 7)
		return usage();
	size = strtoul(argv[2], NULL, 0);
	secs = strtod(argv[3], NULL);
	if (argc == 7)
		batch = strtoul(argv[6], NULL, 0);
	if (size < sizeof(*eth) + sizeof(*ip) + sizeof(*udp) || size > MAX_FRAME ||
	    secs <= 0 || !batch || batch > MAX_BATCH ||
	    sscanf(argv[4], "%x:%x:%x:%x:%x:%x", &mac[0], &mac[1], &mac[2], &mac[3],
		   &mac[4], &mac[5]) != 6)
		return usage();

	fd = socket(AF_PACKET, SOCK_RAW, 0);	/* protocol 0: it receives nothing */
	if (fd < 0) {
		perror("afp_send: socket");
		return 1;
	}
	if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one))) {
		perror("afp_send: PACKET_QDISC_BYPASS");
		return 1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[1]);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		perror("afp_send: SIOCGIFHWADDR");
		return 1;
	}
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = if_nametoindex(argv[1]);
	if (!sll.sll_ifindex || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("afp_send: bind");
		return 1;
	}

	eth = (struct ether_header *)frame;
	for (i = 0; i < 6; i++)
		eth->ether_dhost[i] = mac[i];
	memcpy(eth->ether_shost, ifr.ifr_hwaddr.sa_data, 6);
	eth->ether_type = htons(ETHERTYPE_IP);
	ip = (struct iphdr *)(eth + 1);
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons(size - sizeof(*eth));
	ip->ttl = 32;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = htonl(0x0a000001);
	if (inet_pton(AF_INET, argv[5], &ip->daddr) != 1)
		return usage();
	ip->check = ip_csum(ip, sizeof(*ip));
	udp = (struct udphdr *)(ip + 1);
	udp->source = htons(9);
	udp->dest = htons(9);
	udp->len = htons(size - sizeof(*eth) - sizeof(*ip));

	iov.iov_len = size;
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < batch; i++) {
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
	}

	t0 = now_ns();
	end = t0 + (int64_t)(secs * 1e9);
	do {
		int n = sendmmsg(fd, msgs, batch, 0);

		if (n > 0)
			sent += n;
		if (n < (int)batch) {
			if (n < 0 && errno != ENOBUFS && errno != EAGAIN && errno != EINTR) {
				perror("afp_send: sendmmsg");
				return 1;
			}
			errors += batch - (n > 0 ? n : 0);
		}
	} while (now_ns() < end);
	t1 = now_ns();
	printf("pps %lld packets %lld ns %lld errors %lld\n",
	       (long long)(sent * 1000000000.0 / (double)(t1 - t0)), sent,
	       (long long)(t1 - t0), errors);
	return 0;
}
