/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * PF_IPOPTION: IPv4 packets carrying options, handed to processes by
 * option type (the socket family of the PF_IPOPTION memo, Bell Labs 2000).
 * Implemented by pf_ipoption.ko, of the out-of-tree pktgen tree:
 * Documentation/ipoption-sock.rst.
 *
 *	sock = socket(PF_IPOPTION, SOCK_RAW, IPOPT_RA);
 *	setsockopt(sock, IPPROTO_IP, IP_RECVIF, &on, sizeof(on));
 *	len = recvmsg(sock, &msg, 0);	(the whole IP packet)
 *
 * The protocol argument is an option type of <netinet/ip.h> (IPOPT_RA,
 * IPOPT_RR, IPOPT_TS, IPOPT_LSRR, IPOPT_SSRR, IPOPT_SEC) or 0 for a packet
 * with any option.
 */
#ifndef _UAPI_LINUX_PF_IPOPTION_H
#define _UAPI_LINUX_PF_IPOPTION_H

/*
 * The family's number.  25 (AF_WANPIPE in the C library's headers) is
 * registered by no mainline kernel; pf_ipoption.ko takes another with
 * family=N, shown in /sys/module/pf_ipoption/parameters/family.
 */
#define PF_IPOPTION		25
#define AF_IPOPTION		PF_IPOPTION

/*
 * setsockopt(sock, IPPROTO_IP, OPT, &int, sizeof(int)), nonzero = on;
 * getsockopt reads them back.  The numbers are above every IP_* of
 * <linux/in.h> and <netinet/in.h>, so a program may include both.
 */
#define IPOPT_RECVLOCAL		768	/* copies of local traffic too */
#define IPOPT_RECVRA		769	/* every router alert packet */
#define IP_RECVRSVP		770	/* router alert packets carrying RSVP */
#define IPOPT_RECVRSVP		IP_RECVRSVP
#define IPOPT_RESVRSVP		IP_RECVRSVP	/* the memo's spelling, section 2 */
#define IP_RECVRTCP		771	/* router alert packets carrying RTCP */
#define IPOPT_RECVRTCP		IP_RECVRTCP
#define IP_RECVIF		772	/* cmsg (IPPROTO_IP, IP_RECVIF): ifindex */
#define IPOPT_DROPS		773	/* getsockopt only: packets dropped (int) */

/* The ingress ifindex of an (IPPROTO_IP, IP_RECVIF) control message. */
#define CMSG_IFINDEX(cmsg)	(*(int *)CMSG_DATA(cmsg))

#endif /* _UAPI_LINUX_PF_IPOPTION_H */
