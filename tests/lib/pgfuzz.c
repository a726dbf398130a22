// SPDX-License-Identifier: GPL-2.0
/*
 * pgfuzz: random and mutated writes to the files of /proc/net/pktgen,
 * from several processes at once, with reads checked on the way.
 *
 *	pgfuzz -d DIR -c CORPUS [-w WRITES] [-p PROCS] [-t SECONDS] [-s SEED]
 *	pgfuzz -d DIR -L LIST [-w WRITES] [-p PROCS] [-t SECONDS]
 *
 * CORPUS has one "CLASS COMMAND" per line; CLASS is a file name of DIR
 * (pgctrl, pgrx, ...), "thread" (any kpktgend_N) or "dev" (any other
 * file: the device files, which come and go).  Each process picks a
 * corpus line and mutates it (truncation, flipped and inserted bytes,
 * hostile values, no newline, several commands in one write), or writes
 * random bytes, an empty buffer or a megabyte, to a file of the line's
 * class or to any file; one read in ten checks that the text is printable
 * ASCII without anything that looks like a kernel pointer.  A write that
 * blocks (start) is cut after a second by SIGALRM.
 *
 * With -L, each process writes the lines of LIST ("FILE COMMAND", FILE
 * relative to DIR) in order, over and over, unchanged: the racers of
 * stress-races.sh.
 *
 * Prints "writes N reads N bad_reads N" and the errno histogram; exits 1
 * if a read was bad or a write returned more than it was given.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINES	4096
#define MAX_FILES	256
#define BIG_WRITE	(1 << 20)
#define NERR		140

struct shared_counts {
	long writes;
	long reads;
	long bad_reads;
	long overlong;
	long errs[NERR];
	long ok;
};

static const char *dir;
static char *lines[MAX_LINES];
static int nlines;
static struct shared_counts *counts;
static unsigned long long rng;
static int replay;

static const char * const hostile[] = {
	"", "-1", "0", "1", "-0", "4294967295", "4294967296", "2147483648",
	"18446744073709551615", "18446744073709551616", "999999999999999999999999",
	"0x", "0xffffffff", "0x7fffffff", "1e9", "abc", "%s%s%n", "'", "\"", "\"\"",
	"\\", "\"unterminated", "1,2,3", "1,,2", ",", "ff:ff:ff:ff:ff:ff:ff",
	"00:11:22:33:44", "gg:11:22:33:44:55", "1.2.3.4.5", "256.1.1.1", "1.2.3",
	"::::", "fe80::1%eth0", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8:9", "none",
	"hex:", "hex:0", "hex:zz", "hex:4400", "rr:9", "ts:0", "lsrr:",
	"queue:", "queue:99999", "dev@", "@1", "lo", "nonexistent0",
	"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0",
	"60,7 1500,4 9000,1 64,1 128,1 256,1 512,1 1024,1 1400,1 64,1 64,1",
	"!IPV6", "IPSEC", "0x8000", "65535", "65536", "4095", "4096", "7", "8",
};

static unsigned int rnd(unsigned int n)
{
	/* xorshift64*: good enough to pick cases, and reproducible */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return n ? (unsigned int)((rng * 2685821657736338717ULL) >> 33) % n : 0;
}

static void on_alarm(int sig)
{
	(void)sig;	/* only to interrupt a blocking write */
}

static int load_corpus(const char *path)
{
	char buf[4096];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (nlines < MAX_LINES && fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (buf[0] && buf[0] != '#')
			lines[nlines++] = strdup(buf);
	}
	fclose(f);
	return nlines ? 0 : -1;
}

static int is_fixed(const char *name)
{
	return !strcmp(name, "pgctrl") || !strcmp(name, "pgrx") ||
	       !strcmp(name, "pgstats") ||
	       !strncmp(name, "kpktgend_", 9);
}

/* A file of DIR in CLASS (any file if CLASS is NULL), into path. */
static int pick_file(const char *class, char *path, size_t size)
{
	static char names[MAX_FILES][256];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	while ((de = readdir(d)) && n < MAX_FILES) {
		const char *nm = de->d_name;

		if (nm[0] == '.')
			continue;
		if (class && !strcmp(class, "thread") && strncmp(nm, "kpktgend_", 9))
			continue;
		if (class && !strcmp(class, "dev") && is_fixed(nm))
			continue;
		if (class && strcmp(class, "thread") && strcmp(class, "dev") &&
		    strcmp(class, nm))
			continue;
		snprintf(names[n++], sizeof(names[0]), "%s", nm);
	}
	closedir(d);
	if (!n)
		return -1;
	snprintf(path, size, "%s/%s", dir, names[rnd(n)]);
	return 0;
}

/* Replace the value (what follows the first blank) of cmd by a hostile one. */
static size_t hostile_value(char *out, size_t size, const char *cmd)
{
	const char *sp = strchr(cmd, ' ');
	int klen = sp ? (int)(sp - cmd) : (int)strlen(cmd);
	const char *v = hostile[rnd(sizeof(hostile) / sizeof(hostile[0]))];

	if (rnd(8) == 0) {	/* an overlong token */
		static char longv[600];
		size_t n = 1 + rnd(sizeof(longv) - 1), i;

		for (i = 0; i < n; i++)
			longv[i] = rnd(2) ? '9' : 'a' + rnd(26);
		longv[n] = '\0';
		v = longv;
	}
	return snprintf(out, size, "%.*s %s\n", klen, cmd, v);
}

static size_t mutate(char *buf, size_t size, const char *cmd)
{
	size_t n, i, k;

	switch (rnd(9)) {
	case 0:		/* as is */
		n = snprintf(buf, size, "%s\n", cmd);
		break;
	case 1:		/* cut anywhere, no newline */
		n = strlen(cmd);
		n = rnd(n + 1);
		memcpy(buf, cmd, n);
		break;
	case 2:		/* a few bytes flipped */
		n = snprintf(buf, size, "%s\n", cmd);
		for (k = 1 + rnd(3); k; k--)
			buf[rnd(n)] ^= 1 << rnd(8);
		break;
	case 3:		/* binary bytes inserted */
		n = snprintf(buf, size, "%s\n", cmd);
		i = rnd(n + 1);
		k = 1 + rnd(8);
		memmove(buf + i + k, buf + i, n - i);
		n += k;
		while (k--)
			buf[i + k] = rnd(256);
		break;
	case 4:		/* blanks and case */
		n = snprintf(buf, size, "%s%s%s", rnd(2) ? " \t " : "", cmd,
			     rnd(2) ? "  \t\n" : "");
		for (i = 0; i < n && rnd(3) == 0; i++)
			buf[i] = toupper((unsigned char)buf[i]);
		break;
	case 5: {	/* several commands in one write */
		const char *other = lines[rnd(nlines)];

		other += strcspn(other, " ");
		other += *other == ' ';
		n = snprintf(buf, size, "%s\n%s\n%s", cmd, other, cmd);
		break;
	}
	default:	/* a hostile value */
		n = hostile_value(buf, size, cmd);
		break;
	}
	return n < size ? n : size;
}

/* 0, or 1 + the offset of a non-text byte, or -(1 + offset) of a pointer */
static ssize_t bad_text(const char *buf, ssize_t n)
{
	ssize_t i, run = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = buf[i];

		if (c != '\n' && c != '\t' && (c < 0x20 || c > 0x7e))
			return 1 + i;	/* a NUL or an uninitialised byte */
		/* "ffff8880..."-like: 16 hex digits beginning with ffff */
		run = isxdigit(c) ? run + 1 : 0;
		if (run == 16 && !strncasecmp(buf + i - 15, "ffff", 4))
			return -(1 + i);
	}
	return 0;
}

/* the line of buf around offset at, non-text bytes as \xNN */
static void show_line(const char *buf, ssize_t n, ssize_t at)
{
	ssize_t a = at, b = at;

	while (a > 0 && buf[a - 1] != '\n')
		a--;
	while (b < n && buf[b] != '\n')
		b++;
	for (; a < b; a++) {
		unsigned char c = buf[a];

		if (c >= 0x20 && c <= 0x7e)
			fputc(c, stderr);
		else
			fprintf(stderr, "\\x%02x", c);
	}
	fputc('\n', stderr);
}

static void do_read(void)
{
	static char buf[1 << 16];
	char path[512];
	ssize_t n, total = 0;
	ssize_t bad;
	int fd;

	if (pick_file(NULL, path, sizeof(path)))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((n = read(fd, buf + total, sizeof(buf) - 1 - total)) > 0)
		total += n;
	close(fd);
	__atomic_add_fetch(&counts->reads, 1, __ATOMIC_RELAXED);
	bad = bad_text(buf, total);
	if (bad) {
		__atomic_add_fetch(&counts->bad_reads, 1, __ATOMIC_RELAXED);
		fprintf(stderr, "pgfuzz: bad read (%s) of %s, in the line: ",
			bad > 0 ? "non-text byte" : "pointer-like", path);
		show_line(buf, total, (bad > 0 ? bad : -bad) - 1);
	}
}

static void do_write(char *buf, size_t len, const char *path)
{
	struct itimerval it = { .it_value = { .tv_sec = 1 } };
	struct itimerval off = { 0 };
	ssize_t r;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;		/* the file went away meanwhile */
	setitimer(ITIMER_REAL, &it, NULL);
	r = write(fd, buf, len);
	setitimer(ITIMER_REAL, &off, NULL);
	close(fd);
	__atomic_add_fetch(&counts->writes, 1, __ATOMIC_RELAXED);
	if (r < 0)
		__atomic_add_fetch(&counts->errs[errno < NERR ? errno : 0], 1,
				   __ATOMIC_RELAXED);
	else if ((size_t)r > len)
		__atomic_add_fetch(&counts->overlong, 1, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&counts->ok, 1, __ATOMIC_RELAXED);
}

static void fuzz_one(char *buf)
{
	char path[512], class[64];
	const char *line, *cmd;
	size_t len, i;
	unsigned int what = rnd(100);

	if (what < 10) {
		do_read();
		return;
	}
	line = lines[rnd(nlines)];
	cmd = line + strcspn(line, " ");
	cmd += *cmd == ' ';
	snprintf(class, sizeof(class), "%.*s", (int)strcspn(line, " "), line);
	if (pick_file(rnd(10) ? class : NULL, path, sizeof(path)) &&
	    pick_file(NULL, path, sizeof(path)))
		return;
	if (what < 80) {
		len = mutate(buf, 4096, cmd);
	} else if (what < 94) {		/* random bytes */
		len = rnd(512);
		for (i = 0; i < len; i++)
			buf[i] = rnd(256);
	} else if (what < 97) {		/* empty */
		len = 0;
	} else {			/* a megabyte: text or zeros */
		len = BIG_WRITE;
		memset(buf, rnd(2) ? 'a' : 0, len);
		if (rnd(2))
			memcpy(buf, cmd, strlen(cmd));
	}
	do_write(buf, len, path);
}

/* -L: the next line of the list, as is */
static void replay_one(char *buf)
{
	static int next;
	const char *line = lines[next++ % nlines];
	int flen = strcspn(line, " ");
	char path[512];

	snprintf(path, sizeof(path), "%s/%.*s", dir, flen, line);
	do_write(buf, snprintf(buf, 4096, "%s\n", line + flen + (line[flen] == ' ')), path);
}

static void worker(unsigned long long seed, long writes, time_t deadline)
{
	char *buf = malloc(BIG_WRITE + 4096);
	struct sigaction sa = { .sa_handler = on_alarm };

	if (!buf)
		exit(2);
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART: write returns */
	rng = seed | 1;
	while (__atomic_load_n(&counts->writes, __ATOMIC_RELAXED) < writes &&
	       time(NULL) < deadline)
		replay ? replay_one(buf) : fuzz_one(buf);
	exit(0);
}

int main(int argc, char **argv)
{
	unsigned long long seed = time(NULL);
	long writes = 100000, e;
	int procs = 4, secs = 300, opt, i, rc = 0;
	const char *corpus = NULL;
	time_t deadline;

	while ((opt = getopt(argc, argv, "d:c:L:w:p:t:s:")) != -1) {
		switch (opt) {
		case 'd': dir = optarg; break;
		case 'c': corpus = optarg; break;
		case 'L': corpus = optarg; replay = 1; break;
		case 'w': writes = atol(optarg); break;
		case 'p': procs = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (!dir || !corpus || load_corpus(corpus)) {
		fprintf(stderr, "usage: pgfuzz -d DIR -c CORPUS|-L LIST [-w N] [-p N] [-t S] [-s SEED]\n");
		return 2;
	}
	counts = mmap(NULL, sizeof(*counts), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counts == MAP_FAILED)
		return 2;
	printf("seed %llu procs %d\n", seed, procs);
	fflush(stdout);
	deadline = time(NULL) + secs;
	for (i = 0; i < procs; i++)
		if (fork() == 0)
			worker(seed + 0x9e3779b97f4a7c15ULL * (i + 1), writes, deadline);
	for (i = 0; i < procs; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			rc = 1;
	}
	printf("writes %ld reads %ld bad_reads %ld overlong %ld ok %ld\n",
	       counts->writes, counts->reads, counts->bad_reads, counts->overlong,
	       counts->ok);
	for (e = 0; e < NERR; e++)
		if (counts->errs[e])
			printf("errno %ld (%s): %ld\n", e, strerror(e), counts->errs[e]);
	if (counts->bad_reads || counts->overlong)
		rc = 1;
	return rc;
}
