// SPDX-License-Identifier: GPL-2.0
/* pgwrite: one write(2) to a proc file and its errno, optionally in a netns.
 *	pgwrite [-n NSFILE] [-r] PATH	write stdin (or -r: print PATH);
 *					exit status = errno
 *	pgwrite -s			server: requests on stdin
 *	"W|R NSFILE|- PATH LEN\n" + LEN data bytes -> "ERRNO LEN\n" + LEN bytes
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static char buf[1 << 20];
static int home = -1, away;
/* "-": back home, and no setns(2) if never away: a server run without
 * CAP_SYS_ADMIN (security.sh's unprivileged writers) serves "-" requests */
static int enter(const char *ns)
{
	int fd, r;

	if (!strcmp(ns, "-")) {
		if (!away || home < 0)
			return 0;
		r = setns(home, CLONE_NEWNET) ? errno : 0;
		away = r != 0;
		return r;
	}
	fd = open(ns, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	r = setns(fd, CLONE_NEWNET) ? errno : 0;
	away |= !r;
	close(fd);
	return r;
}
static int rd(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	*n = 0;
	if (fd < 0)
		return errno;
	while (*n < sizeof(buf) && (r = read(fd, buf + *n, sizeof(buf) - *n)) > 0)
		*n += r;
	r = r < 0 ? errno : 0;
	close(fd);
	return r;
}
static int wr(const char *path, size_t n)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r;

	if (fd < 0)
		return errno;
	r = write(fd, buf, n) < 0 ? errno : 0;
	close(fd);
	return r;
}
static int serve(void)
{
	char op, ns[4096], path[4096];
	size_t len, n;
	int e;

	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	while (scanf(" %c %4095s %4095s %zu", &op, ns, path, &len) == 4) {
		getchar();
		if (len > sizeof(buf) || fread(buf, 1, len, stdin) != len)
			return 1;
		n = 0;
		e = enter(ns);
		if (!e)
			e = op == 'R' ? rd(path, &n) : wr(path, len);
		enter("-");	/* hold no netns: `ip netns del` must free it */
		printf("%d %zu\n", e, n);
		fwrite(buf, 1, n, stdout);
		fflush(stdout);
	}
	return 0;
}
int main(int argc, char **argv)
{
	int o, e, rflag = 0;
	size_t n = 0;
	ssize_t r;

	while ((o = getopt(argc, argv, "n:rs")) != -1) {
		if (o == 's')
			return serve();
		if (o == 'r')
			rflag = 1;
		else if (o == 'n' && (e = enter(optarg)))
			return e;
		else if (o == '?')
			return 2;
	}
	if (optind != argc - 1)
		return 2;
	if (rflag) {
		e = rd(argv[optind], &n);
		fwrite(buf, 1, n, stdout);
		return e;
	}
	while (n < sizeof(buf) && (r = read(0, buf + n, sizeof(buf) - n)) > 0)
		n += r;
	return wr(argv[optind], n);
}
