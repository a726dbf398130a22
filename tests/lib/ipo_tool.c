// SPDX-License-Identifier: GPL-2.0
/*
 * ipo_tool: PF_IPOPTION test helper (tests/ipoption-sock.sh).
 *
 *	ipo_tool listen TYPE FLAGS N TIMEOUT_MS
 *		socket(PF_IPOPTION, SOCK_RAW, TYPE) (ra rr ts lsrr ssrr sec any),
 *		FLAGS a comma list of local, if, ra, rsvp, rtcp (or "-");
 *		prints "ready", then per packet "pkt LEN IFINDEX PROTO SEQ
 *		IPCSUM L4CSUM" (csum: ok, bad or -), then "drops N" at the end
 *		(N packets, TIMEOUT_MS without one, or SIGTERM).
 *	ipo_tool send DST rsvp|udp N SIZE [noopt]
 *		N packets with a router alert (noopt: none), the payload's
 *		first 4 bytes a sequence number from 0; udp to port 9999.
 *	ipo_tool udprecv PORT N TIMEOUT_MS	count UDP datagrams: "udp N" (as listen)
 *	ipo_tool create TYPE	socket(): "ok" or "errno N"
 *	ipo_tool hold [RCVBUF]	socket(PF_IPOPTION, SOCK_RAW, IPOPT_RA) that never
 *		reads (SO_RCVBUF RCVBUF), "ready"; on SIGTERM "queued Q drops D"
 *	ipo_tool sendraw DST OPTHEX N	N UDP packets to DST port 9999 with the
 *		option bytes OPTHEX (a multiple of 4), by an IP_HDRINCL socket
 *	ipo_tool fuzz		bad arguments of every call: PASS/FAIL lines
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/pf_ipoption.h>

/* SIGTERM ends a listen or udprecv early, which still prints its summary */
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = sig;
}

/* Wait up to @ms for @fd to be readable, in slices that see @stop. */
static int wait_readable(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r;

	for (; !stop && ms > 0; ms -= 100) {
		r = poll(&pfd, 1, ms < 100 ? ms : 100);
		if (r)
			return r;
	}
	return 0;
}

#define IPO_FAMILY	(getenv("IPO_FAMILY") ? atoi(getenv("IPO_FAMILY")) : PF_IPOPTION)

static int type_of(const char *s)
{
	static const struct { const char *n; int v; } t[] = {
		{ "ra", IPOPT_RA }, { "rr", IPOPT_RR }, { "ts", IPOPT_TS },
		{ "lsrr", IPOPT_LSRR }, { "ssrr", IPOPT_SSRR }, { "sec", IPOPT_SEC },
		{ "any", 0 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(s, t[i].n))
			return t[i].v;
	return atoi(s);
}

static unsigned short csum(const void *data, size_t len, unsigned int sum)
{
	const unsigned char *p = data;

	while (len > 1) {
		sum += p[0] << 8 | p[1];
		p += 2;
		len -= 2;
	}
	if (len)
		sum += p[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* "ok" if the UDP checksum of the IP packet @p verifies, "bad", or "-" */
static const char *l4csum(const unsigned char *p, int len)
{
	const struct ip *ip = (const void *)p;
	int hl = ip->ip_hl * 4, ulen;
	unsigned int sum;

	if (ip->ip_p != IPPROTO_UDP || (ntohs(ip->ip_off) & 0x3fff) || len < hl + 8)
		return "-";
	ulen = ntohs(ip->ip_len) - hl;
	if (ulen > len - hl || !(p[hl + 6] | p[hl + 7]))
		return "-";
	sum = csum(&ip->ip_src, 8, 0) + IPPROTO_UDP + ulen;
	return csum(p + hl, ulen, sum) == 0xffff ? "ok" : "bad";
}

static int do_listen(char **argv)
{
	int s, on = 1, n = atoi(argv[2]), timeout = atoi(argv[3]), drops;
	static unsigned char buf[65536];
	char ctrl[256], *f, *save = NULL;
	socklen_t dl = sizeof(drops);
	struct msghdr msg;
	struct cmsghdr *c;
	struct iovec iov;

	s = socket(IPO_FAMILY, SOCK_RAW, type_of(argv[0]));
	if (s < 0) {
		printf("socket: errno %d\n", errno);
		return 1;
	}
	for (f = strtok_r(argv[1], ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		int opt = !strcmp(f, "local") ? IPOPT_RECVLOCAL : !strcmp(f, "if") ? IP_RECVIF :
			  !strcmp(f, "ra") ? IPOPT_RECVRA : !strcmp(f, "rsvp") ? IPOPT_RESVRSVP :
			  !strcmp(f, "rtcp") ? IPOPT_RECVRTCP : 0;

		if (opt && setsockopt(s, IPPROTO_IP, opt, &on, sizeof(on))) {
			printf("setsockopt %s: errno %d\n", f, errno);
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	while (n-- > 0 && wait_readable(s, timeout) == 1) {
		int len, ifx = -1;
		const struct ip *ip = (const void *)buf;
		unsigned int seq = 0;

		memset(&msg, 0, sizeof(msg));
		iov.iov_base = buf;
		iov.iov_len = sizeof(buf);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctrl;
		msg.msg_controllen = sizeof(ctrl);
		len = recvmsg(s, &msg, MSG_DONTWAIT);
		if (len < 0) {
			printf("recvmsg: errno %d\n", errno);
			return 1;
		}
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
			if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVIF)
				ifx = CMSG_IFINDEX(c);
		if (len >= ip->ip_hl * 4 + 4 && ip->ip_p != IPPROTO_UDP)
			memcpy(&seq, buf + ip->ip_hl * 4, 4);
		else if (len >= ip->ip_hl * 4 + 12)
			memcpy(&seq, buf + ip->ip_hl * 4 + 8, 4);
		printf("pkt %d %d %d %u %s %s\n", len, ifx, ip->ip_p, ntohl(seq),
		       csum(buf, ip->ip_hl * 4, 0) == 0xffff ? "ok" : "bad", l4csum(buf, len));
		fflush(stdout);
	}
	if (getsockopt(s, IPPROTO_IP, IPOPT_DROPS, &drops, &dl))
		drops = -errno;
	printf("drops %d\n", drops);
	return 0;
}

static int do_send(char **argv, int argc)
{
	int n = atoi(argv[2]), size = atoi(argv[3]), i, s, dont = IP_PMTUDISC_DONT;
	unsigned char ra[4] = { 0x94, 0x04, 0x00, 0x00 }, *buf;
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9999) };
	int udp = !strcmp(argv[1], "udp");

	inet_pton(AF_INET, argv[0], &to.sin_addr);
	s = udp ? socket(AF_INET, SOCK_DGRAM, 0) : socket(AF_INET, SOCK_RAW, IPPROTO_RSVP);
	if (s < 0 || (argc < 5 && setsockopt(s, IPPROTO_IP, IP_OPTIONS, ra, sizeof(ra)))) {
		printf("send: errno %d\n", errno);
		return 1;
	}
	/* no DF: a packet over a path MTU is fragmented, not refused */
	if (setsockopt(s, IPPROTO_IP, IP_MTU_DISCOVER, &dont, sizeof(dont))) {
		printf("IP_MTU_DISCOVER: errno %d\n", errno);
		return 1;
	}
	buf = calloc(1, size < 4 ? 4 : size);
	for (i = 0; i < n; i++) {
		unsigned int seq = htonl(i);

		memcpy(buf, &seq, 4);
		if (sendto(s, buf, size, 0, (struct sockaddr *)&to, sizeof(to)) != size) {
			printf("sendto: errno %d\n", errno);
			return 1;
		}
		usleep(20000);
	}
	return 0;
}

static int do_sendraw(char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	unsigned char pkt[128] = { 0 }, *u;
	int s = socket(AF_INET, SOCK_RAW, IPPROTO_RAW), n = atoi(argv[2]), i;
	size_t olen = strlen(argv[1]) / 2, len;
	struct ip *ip = (void *)pkt;

	if (s < 0 || olen % 4 || olen > 40) {
		printf("sendraw: errno %d, %zu option bytes\n", errno, olen);
		return 1;
	}
	inet_pton(AF_INET, argv[0], &to.sin_addr);
	for (i = 0; i < (int)olen; i++)
		sscanf(argv[1] + 2 * i, "%2hhx", &pkt[20 + i]);
	len = 20 + olen + 8 + 4;
	ip->ip_v = 4;
	ip->ip_hl = (20 + olen) / 4;
	ip->ip_len = htons(len);
	ip->ip_ttl = 64;
	ip->ip_p = IPPROTO_UDP;
	ip->ip_dst = to.sin_addr;	/* the kernel fills in source, id, checksum */
	u = pkt + 20 + olen;
	u[0] = 0x27;			/* port 9999 to 9999, no UDP checksum */
	u[1] = 0x0f;
	u[2] = 0x27;
	u[3] = 0x0f;
	u[5] = 12;
	for (i = 0; i < n; i++) {
		u[11] = i;
		if (sendto(s, pkt, len, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)len) {
			printf("sendto: errno %d\n", errno);
			return 1;
		}
		usleep(20000);
	}
	return 0;
}

static int do_hold(char **argv, int argc)
{
	int s = socket(IPO_FAMILY, SOCK_RAW, IPOPT_RA), buf, q = 0, d;
	socklen_t dl = sizeof(d);
	char pkt[65536];

	if (s < 0) {
		printf("errno %d\n", errno);
		return 1;
	}
	buf = argc > 0 ? atoi(argv[0]) : 0;
	if (buf && setsockopt(s, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf))) {
		printf("SO_RCVBUF: errno %d\n", errno);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	while (recv(s, pkt, sizeof(pkt), MSG_DONTWAIT) > 0)
		q++;
	if (getsockopt(s, IPPROTO_IP, IPOPT_DROPS, &d, &dl))
		d = -errno;
	printf("queued %d drops %d\n", q, d);
	return 0;
}

static int do_udprecv(char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[0])) };
	int s = socket(AF_INET, SOCK_DGRAM, 0), n = atoi(argv[1]), got = 0;
	char buf[65536];

	if (bind(s, (struct sockaddr *)&a, sizeof(a))) {
		printf("bind: errno %d\n", errno);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (got < n && wait_readable(s, atoi(argv[2])) == 1)
		if (recv(s, buf, sizeof(buf), 0) >= 0)
			got++;
	printf("udp %d\n", got);
	return 0;
}

/* ---- fuzz ---- */

static int fails;

static void expect(const char *what, int ret, int err)
{
	int e = errno;

	if ((err && ret == -1 && e == err) || (!err && ret >= 0)) {
		printf("PASS %s\n", what);
	} else {
		printf("FAIL %s|returned %d errno %d, wanted %s %d\n", what, ret,
		       ret < 0 ? e : 0, err ? "errno" : "success", err);
		fails++;
	}
}

static int do_fuzz(void)
{
	int s, on = 1, v, big[8] = { 1 }, i, r;
	socklen_t l;
	char buf[64];
	struct msghdr msg;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	static const int types[] = { IPOPT_RA, IPOPT_RR, IPOPT_TS, IPOPT_LSRR, IPOPT_SSRR,
				     IPOPT_SEC, 0 };
	static const int opts[] = { IPOPT_RECVLOCAL, IPOPT_RECVRA, IP_RECVRSVP, IP_RECVRTCP,
				    IP_RECVIF };

	for (i = 0; i < 7; i++) {
		snprintf(buf, sizeof(buf), "socket protocol %d", types[i]);
		s = socket(IPO_FAMILY, SOCK_RAW, types[i]);
		expect(buf, s, 0);
		close(s);
	}
	expect("socket SOCK_DGRAM: ESOCKTNOSUPPORT", socket(IPO_FAMILY, SOCK_DGRAM, IPOPT_RA),
	       ESOCKTNOSUPPORT);
	expect("socket SOCK_STREAM: ESOCKTNOSUPPORT", socket(IPO_FAMILY, SOCK_STREAM, 0),
	       ESOCKTNOSUPPORT);
	expect("socket protocol 1 (NOP): EPROTONOSUPPORT", socket(IPO_FAMILY, SOCK_RAW, 1),
	       EPROTONOSUPPORT);
	expect("socket protocol 256: EPROTONOSUPPORT", socket(IPO_FAMILY, SOCK_RAW, 256),
	       EPROTONOSUPPORT);
	expect("socket protocol -1: EPROTONOSUPPORT", socket(IPO_FAMILY, SOCK_RAW, -1),
	       EPROTONOSUPPORT);

	s = socket(IPO_FAMILY, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPOPT_RA);
	expect("socket SOCK_NONBLOCK, SOCK_CLOEXEC", s, 0);
	for (i = 0; i < 5; i++) {
		snprintf(buf, sizeof(buf), "setsockopt %d on", opts[i]);
		expect(buf, setsockopt(s, IPPROTO_IP, opts[i], &on, sizeof(on)), 0);
		v = 0;
		l = sizeof(v);
		snprintf(buf, sizeof(buf), "getsockopt %d reads 1", opts[i]);
		r = getsockopt(s, IPPROTO_IP, opts[i], &v, &l);
		expect(buf, r == 0 && v == 1 && l == sizeof(int) ? 0 : -1, 0);
		snprintf(buf, sizeof(buf), "setsockopt %d big optlen", opts[i]);
		expect(buf, setsockopt(s, IPPROTO_IP, opts[i], big, sizeof(big)), 0);
	}
	expect("setsockopt optlen 0: EINVAL", setsockopt(s, IPPROTO_IP, IP_RECVIF, &on, 0), EINVAL);
	expect("setsockopt optlen 3: EINVAL", setsockopt(s, IPPROTO_IP, IP_RECVIF, &on, 3), EINVAL);
	expect("setsockopt NULL: EFAULT", setsockopt(s, IPPROTO_IP, IP_RECVIF, NULL, 4), EFAULT);
	expect("setsockopt bad pointer: EFAULT",
	       setsockopt(s, IPPROTO_IP, IP_RECVIF, (void *)8, 4), EFAULT);
	expect("setsockopt unknown option: ENOPROTOOPT",
	       setsockopt(s, IPPROTO_IP, IP_TTL, &on, sizeof(on)), ENOPROTOOPT);
	expect("setsockopt IPOPT_DROPS: ENOPROTOOPT",
	       setsockopt(s, IPPROTO_IP, IPOPT_DROPS, &on, sizeof(on)), ENOPROTOOPT);
	expect("setsockopt level IPPROTO_TCP: ENOPROTOOPT",
	       setsockopt(s, IPPROTO_TCP, IP_RECVIF, &on, sizeof(on)), ENOPROTOOPT);
	expect("setsockopt level -1: ENOPROTOOPT",
	       setsockopt(s, -1, IP_RECVIF, &on, sizeof(on)), ENOPROTOOPT);
	expect("setsockopt SOL_SOCKET SO_RCVBUF",
	       setsockopt(s, SOL_SOCKET, SO_RCVBUF, &on, sizeof(on)), 0);
	l = 2;
	expect("getsockopt optlen 2: EINVAL", getsockopt(s, IPPROTO_IP, IP_RECVIF, &v, &l),
	       EINVAL);
	l = -1;
	expect("getsockopt optlen -1: EINVAL", getsockopt(s, IPPROTO_IP, IP_RECVIF, &v, &l),
	       EINVAL);
	expect("getsockopt NULL optlen: EFAULT",
	       getsockopt(s, IPPROTO_IP, IP_RECVIF, &v, NULL), EFAULT);
	l = sizeof(v);
	expect("getsockopt NULL optval: EFAULT",
	       getsockopt(s, IPPROTO_IP, IP_RECVIF, NULL, &l), EFAULT);
	l = sizeof(v);
	expect("getsockopt unknown: ENOPROTOOPT", getsockopt(s, IPPROTO_IP, IP_TTL, &v, &l),
	       ENOPROTOOPT);
	l = sizeof(v);
	expect("getsockopt level IPPROTO_UDP: ENOPROTOOPT",
	       getsockopt(s, IPPROTO_UDP, IP_RECVIF, &v, &l), ENOPROTOOPT);
	l = sizeof(v);
	v = -1;
	r = getsockopt(s, IPPROTO_IP, IPOPT_DROPS, &v, &l);
	expect("getsockopt IPOPT_DROPS reads 0", r == 0 && v == 0 ? 0 : -1, 0);

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	expect("recvmsg empty queue: EAGAIN", recvmsg(s, &msg, 0), EAGAIN);
	expect("recvmsg MSG_PEEK, TRUNC, CMSG_CLOEXEC, WAITALL, NOSIGNAL: EAGAIN",
	       recvmsg(s, &msg, MSG_PEEK | MSG_TRUNC | MSG_CMSG_CLOEXEC | MSG_WAITALL |
		       MSG_NOSIGNAL | MSG_DONTWAIT), EAGAIN);
	expect("recvmsg MSG_OOB: EOPNOTSUPP", recvmsg(s, &msg, MSG_OOB), EOPNOTSUPP);
	expect("recvmsg MSG_ERRQUEUE: EOPNOTSUPP", recvmsg(s, &msg, MSG_ERRQUEUE), EOPNOTSUPP);
	expect("recvmsg MSG_WAITFORONE: EOPNOTSUPP", recvmsg(s, &msg, MSG_WAITFORONE),
	       EOPNOTSUPP);
	expect("recvmsg NULL iov: EAGAIN or EFAULT",
	       recv(s, NULL, 100, 0) < 0 && (errno == EAGAIN || errno == EFAULT) ? 0 : -1, 0);
	expect("send: EOPNOTSUPP", send(s, buf, 4, 0), EOPNOTSUPP);
	expect("bind: EOPNOTSUPP", bind(s, (struct sockaddr *)buf, 16), EOPNOTSUPP);
	expect("connect: EOPNOTSUPP", connect(s, (struct sockaddr *)buf, 16), EOPNOTSUPP);
	expect("listen: EOPNOTSUPP", listen(s, 1), EOPNOTSUPP);
	close(s);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_flags = 0 };
	int s;

	if (argc < 2)
		return 2;
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	if (!strcmp(argv[1], "listen") && argc >= 6)
		return do_listen(argv + 2);
	if (!strcmp(argv[1], "send") && argc >= 6)
		return do_send(argv + 2, argc - 2);
	if (!strcmp(argv[1], "udprecv") && argc >= 5)
		return do_udprecv(argv + 2);
	if (!strcmp(argv[1], "fuzz"))
		return do_fuzz();
	if (!strcmp(argv[1], "create") && argc >= 3) {
		s = socket(IPO_FAMILY, SOCK_RAW, type_of(argv[2]));
		if (s < 0)
			printf("errno %d\n", errno);
		else
			printf("ok\n");
		return 0;
	}
	if (!strcmp(argv[1], "hold"))
		return do_hold(argv + 2, argc - 2);
	if (!strcmp(argv[1], "sendraw") && argc >= 5)
		return do_sendraw(argv + 2);
	return 2;
}
