// SPDX-License-Identifier: GPL-2.0
/* ipo_reinject TIMEOUT_MS: socket(PF_IPOPTION, SOCK_RAW, 0); reinject every packet
 * unchanged to its ip_dst (IPPROTO_RAW), like the memo's ipodump; on
 * TIMEOUT_MS of silence print "got N". */
#include <netinet/ip.h>
#include <linux/pf_ipoption.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
int main(int argc, char **argv)
{
	int ms = argc > 1 ? atoi(argv[1]) : 3000, n = 0, len;
	int s = socket(PF_IPOPTION, SOCK_RAW, 0), tx = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	static char pkt[65536];
	struct pollfd p = { .fd = s, .events = POLLIN };
	struct sockaddr_in to = { .sin_family = AF_INET };

	if (s < 0 || tx < 0) { perror("socket"); return 1; }
	printf("ready\n"); fflush(stdout);
	while (poll(&p, 1, ms) > 0) {
		len = recv(s, pkt, sizeof(pkt), 0);
		if (len < 20) break;
		n++;
		if (n <= 3 || n % 20 == 0) {
			printf("pkt %d ttl %d dst %s\n", n, ((struct ip *)pkt)->ip_ttl,
			       inet_ntoa(((struct ip *)pkt)->ip_dst));
			fflush(stdout);
		}
		to.sin_addr = ((struct ip *)pkt)->ip_dst;
		sendto(tx, pkt, len, 0, (struct sockaddr *)&to, sizeof(to));
	}
	printf("got %d\n", n); fflush(stdout);
	return 0;
}
