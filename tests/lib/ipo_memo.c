// SPDX-License-Identifier: GPL-2.0
/*
 * The PF_IPOPTION memo's section 2.1 code (ipodump's interception and
 * reinjection), as close to the memo's text as C allows, compiled with
 * <netinet/ip.h> and <linux/pf_ipoption.h> (include/uapi of this tree).
 * What the memo leaves out ("...", "omitting details") is filled in and
 * marked "glue"; one change Linux needs is marked "Linux:".
 *
 *	ipo_memo COUNT [recvif]
 *
 * Intercepts COUNT RSVP packets with a router alert, prints one line per
 * packet ("pkt LEN IFINDEX SEQ", SEQ the first 4 payload bytes) and sends
 * each back into the kernel, which forwards it.  "recvif" also sets
 * IP_RECVIF (ipodump -i).
 */
#include <netinet/ip.h>
#include <linux/pf_ipoption.h>

/* glue: what the memo's fragments use besides <netinet/ip.h> */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PKT_SIZE	65535
#define MAXCTRLSIZE	256

/* glue: the memo's "process RSVP message" */
static void rsvp_read(char *packet, int len, int if_index)
{
	struct ip *ip = (struct ip *)packet;
	unsigned char *p = (unsigned char *)packet + ip->ip_hl * 4;
	unsigned int seq = 0;

	if (len >= ip->ip_hl * 4 + 4)
		seq = (unsigned int)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
	printf("pkt %d %d %u\n", len, if_index, seq);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	/* glue: the declarations the memo omits */
	long count = argc > 1 ? atol(argv[1]) : 1;
	struct sockaddr_in to;
	struct msghdr msg;
	int len, if_index = 0;

	int sock, on=1;

	sock = socket(PF_IPOPTION, SOCK_RAW, IPOPT_RA);
	setsockopt(sock, IPPROTO_IP, IP_RECVRSVP, &on, sizeof(on));
	/* glue: ipodump -i */
	if (argc > 2 && !strcmp(argv[2], "recvif"))
		setsockopt(sock, IPPROTO_IP, IP_RECVIF, &on, sizeof(on));
	if (sock < 0) {	/* glue */
		perror("socket(PF_IPOPTION)");
		return 1;
	}

	struct iovec iov;           /* provide data buffer info */
	struct cmsghdr *cmsg;      /* pointer to control message */
	char *packet = (char *)malloc(MAX_PKT_SIZE);
	char *ctrl = (char *)malloc(MAXCTRLSIZE);

	int tx_sock;

	/* initialize the transmit socket */
	/*
	 * Linux: socket(PF_INET, SOCK_RAW, 0) is EPROTONOSUPPORT; IPPROTO_RAW
	 * is the raw socket that sends any protocol, IP_HDRINCL implied.
	 */
	tx_sock = socket(PF_INET, SOCK_RAW, IPPROTO_RAW);
	setsockopt(tx_sock, IPPROTO_IP, IP_HDRINCL, &on, sizeof(on));
	if (tx_sock < 0) {	/* glue */
		perror("socket(PF_INET)");
		return 1;
	}
	printf("ready\n");	/* glue: the test waits for this */
	fflush(stdout);

	while (count-- > 0) {	/* glue */
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = (char *)packet;
		iov.iov_len = MAX_PKT_SIZE;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;	/* glue */
		msg.msg_control = ctrl;
		msg.msg_controllen = MAXCTRLSIZE;

		len = recvmsg(sock, &msg, 0);
		if (len < 0) {	/* glue */
			perror("recvmsg");
			return 1;
		}
		for (cmsg = CMSG_FIRSTHDR(&msg); cmsg != NULL;
		     cmsg = CMSG_NXTHDR(&msg, cmsg)) {
			if (cmsg->cmsg_type == IP_RECVIF)
				if_index = CMSG_IFINDEX(cmsg);
		}

		rsvp_read(packet, len, if_index); /* process RSVP message */

		/* send out the packet (glue: to its destination) */
		memset(&to, 0, sizeof(to));
		to.sin_family = AF_INET;
		to.sin_addr = ((struct ip *)packet)->ip_dst;
		if (sendto(tx_sock, packet, len, 0, (struct sockaddr *)&to, sizeof(to)) != len) {
			perror("sendto");	/* glue */
			return 1;
		}
	}
	return 0;
}
