// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: IPv4 options for the ip_opt device command.
 *
 * A spec is a comma-separated list of named options (or raw bytes); it
 * is turned into the option bytes once, when written, and the bytes go
 * into the header template, so options cost nothing per packet.  Named
 * forms are built the way RFC 791 / RFC 2113 lay them out, with the
 * pointer at the first free slot; hex: is sent as given, for testing how
 * receivers handle malformed options.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <net/ip.h>

#include "pktgen.h"
#include "pktgen_ipopt_tx.h"

#define PG_OPT_RR_MAX		9	/* (40 - 3) / 4 */
#define PG_OPT_TS_MAX		9	/* (40 - 4) / 4 */
#define PG_OPT_TSADDR_MAX	4	/* (40 - 4) / 8 */
#define PG_OPT_SEC_LEN		11	/* type, len, S, C, H, TCC */

/* What is accepted, for the Result of a refused write. */
#define PG_OPT_FORM \
	"ip_opt takes none, or a comma-separated list of ra[:v], rr:<n>, ts:tsonly:<n>, ts:tsandaddr:<n>, ts:prespec:<a>/..., lsrr:<a>/..., ssrr:<a>/..., sec, nop[:n], eol, hex:<bytes>"
#define PG_OPT_ROUTE_FORM \
	"ip_opt: lsrr:<a>/<b>/... or ssrr:<a>/<b>/... (1-9 IPv4 hops), one source route per packet"
#define PG_OPT_TS_FORM \
	"ip_opt: ts:tsonly:<1-9>, ts:tsandaddr:<1-4> or ts:prespec:<a>/<b>... (1-4), once per packet"

struct pg_opt_buf {
	u8 *bytes;
	unsigned int len;
	bool have_rr;
	bool have_ts;
	bool have_route;
	const char **why;
};

static int pg_opt_room(struct pg_opt_buf *b, unsigned int n)
{
	if (b->len + n > PG_IP_OPT_MAX) {
		*b->why = "ip_opt: options take at most 40 bytes";
		return -E2BIG;
	}
	return 0;
}

static int pg_opt_put(struct pg_opt_buf *b, const u8 *p, unsigned int n)
{
	int err = pg_opt_room(b, n);

	if (!err) {
		memcpy(b->bytes + b->len, p, n);
		b->len += n;
	}
	return err;
}

/* Decimal count in [1, max] after "name:"; absent means @def. */
static int pg_opt_count(const char *arg, unsigned int def, unsigned int max,
			unsigned int *n)
{
	if (!arg) {
		*n = def;
		return 0;
	}
	if (!isdigit(*arg) || kstrtouint(arg, 10, n) || *n < 1 || *n > max)
		return -EINVAL;
	return 0;
}

/* "a/b/c": up to @max IPv4 addresses, as option data. */
static int pg_opt_addrs(char *arg, unsigned int max, __be32 *addrs, unsigned int *n)
{
	const char *end;
	char *a;

	*n = 0;
	if (!arg || !*arg)
		return -EINVAL;
	while ((a = strsep(&arg, "/"))) {
		if (*n == max || !in4_pton(a, -1, (u8 *)&addrs[*n], -1, &end) || *end)
			return -EINVAL;
		(*n)++;
	}
	return 0;
}

/* Record route: type 7, room for @slots addresses. */
static int pg_opt_rr(struct pg_opt_buf *b, const char *arg)
{
	u8 opt[3 + 4 * PG_OPT_RR_MAX] = { IPOPT_RR };
	unsigned int slots;

	if (b->have_rr || pg_opt_count(arg, PG_OPT_RR_MAX, PG_OPT_RR_MAX, &slots)) {
		*b->why = "ip_opt: rr:<slots 1-9>, once per packet";
		return -EINVAL;
	}
	b->have_rr = true;
	opt[1] = 3 + 4 * slots;
	opt[2] = IPOPT_MINOFF;
	return pg_opt_put(b, opt, opt[1]);
}

/* Loose or strict source route: the hops, pointer at the first. */
static int pg_opt_route(struct pg_opt_buf *b, u8 type, char *arg)
{
	u8 opt[3 + 4 * PG_OPT_RR_MAX] = { type };
	__be32 addrs[PG_OPT_RR_MAX];
	unsigned int n;

	if (b->have_route || pg_opt_addrs(arg, PG_OPT_RR_MAX, addrs, &n)) {
		*b->why = PG_OPT_ROUTE_FORM;
		return -EINVAL;
	}
	b->have_route = true;
	opt[1] = 3 + 4 * n;
	opt[2] = IPOPT_MINOFF;
	memcpy(opt + 3, addrs, 4 * n);
	return pg_opt_put(b, opt, opt[1]);
}

/* Timestamp: tsonly:<n>, tsandaddr:<n> or prespec:<a>/<b>... */
static int pg_opt_ts(struct pg_opt_buf *b, char *arg)
{
	u8 opt[4 + 8 * PG_OPT_TSADDR_MAX + 4] = { IPOPT_TS };
	__be32 addrs[PG_OPT_TSADDR_MAX];
	char *kind = strsep(&arg, ":");
	unsigned int n, i;
	int err = -EINVAL;

	if (b->have_ts || !kind)
		goto bad;
	if (!strcmp(kind, "tsonly")) {
		err = pg_opt_count(arg, PG_OPT_TS_MAX, PG_OPT_TS_MAX, &n);
		opt[1] = 4 + 4 * n;
		opt[3] = IPOPT_TS_TSONLY;
	} else if (!strcmp(kind, "tsandaddr")) {
		err = pg_opt_count(arg, PG_OPT_TSADDR_MAX, PG_OPT_TSADDR_MAX, &n);
		opt[1] = 4 + 8 * n;
		opt[3] = IPOPT_TS_TSANDADDR;
	} else if (!strcmp(kind, "prespec")) {
		err = pg_opt_addrs(arg, PG_OPT_TSADDR_MAX, addrs, &n);
		opt[1] = 4 + 8 * n;
		opt[3] = IPOPT_TS_PRESPEC;
		for (i = 0; !err && i < n; i++)
			memcpy(opt + 4 + 8 * i, &addrs[i], 4);
	}
	if (err)
		goto bad;
	b->have_ts = true;
	opt[2] = IPOPT_MINOFF + 1;	/* 5: the first slot */
	return pg_opt_put(b, opt, opt[1]);
bad:
	*b->why = PG_OPT_TS_FORM;
	return -EINVAL;
}

/* Router alert (RFC 2113): 0 = "examine packet". */
static int pg_opt_ra(struct pg_opt_buf *b, const char *arg)
{
	u8 opt[4] = { IPOPT_RA, 4 };
	u16 value = 0;

	if (arg && (!isdigit(*arg) || kstrtou16(arg, 10, &value))) {
		*b->why = "ip_opt: ra or ra:<value 0-65535>";
		return -EINVAL;
	}
	put_unaligned_be16(value, opt + 2);
	return pg_opt_put(b, opt, sizeof(opt));
}

/* RFC 791 security option, all fields zero: Unclassified. */
static int pg_opt_sec(struct pg_opt_buf *b, const char *arg)
{
	u8 opt[PG_OPT_SEC_LEN] = { IPOPT_SEC, PG_OPT_SEC_LEN };

	if (arg) {
		*b->why = "ip_opt: sec takes no value";
		return -EINVAL;
	}
	return pg_opt_put(b, opt, sizeof(opt));
}

static int pg_opt_nop(struct pg_opt_buf *b, const char *arg)
{
	unsigned int n, i;
	int err;

	if (pg_opt_count(arg, 1, PG_IP_OPT_MAX, &n)) {
		*b->why = "ip_opt: nop or nop:<count 1-40>";
		return -EINVAL;
	}
	err = pg_opt_room(b, n);
	for (i = 0; !err && i < n; i++)
		b->bytes[b->len++] = IPOPT_NOOP;
	return err;
}

/* Raw bytes, sent as given. */
static int pg_opt_hex(struct pg_opt_buf *b, const char *arg)
{
	size_t n = arg ? strlen(arg) : 0;
	int err;

	if (!n || n % 2) {
		*b->why = "ip_opt: hex:<an even number of hex digits>";
		return -EINVAL;
	}
	err = pg_opt_room(b, n / 2);
	if (err)
		return err;
	if (hex2bin(b->bytes + b->len, arg, n / 2)) {
		*b->why = "ip_opt: hex:<an even number of hex digits>";
		return -EINVAL;
	}
	b->len += n / 2;
	return 0;
}

static int pg_opt_one(struct pg_opt_buf *b, char *item)
{
	char *name = strsep(&item, ":");
	u8 eol = IPOPT_END;

	if (!strcmp(name, "ra"))
		return pg_opt_ra(b, item);
	if (!strcmp(name, "rr"))
		return pg_opt_rr(b, item);
	if (!strcmp(name, "ts"))
		return pg_opt_ts(b, item);
	if (!strcmp(name, "lsrr"))
		return pg_opt_route(b, IPOPT_LSRR, item);
	if (!strcmp(name, "ssrr"))
		return pg_opt_route(b, IPOPT_SSRR, item);
	if (!strcmp(name, "sec"))
		return pg_opt_sec(b, item);
	if (!strcmp(name, "nop"))
		return pg_opt_nop(b, item);
	if (!strcmp(name, "eol") && !item)
		return pg_opt_put(b, &eol, 1);
	if (!strcmp(name, "hex"))
		return pg_opt_hex(b, item);
	*b->why = PG_OPT_FORM;
	return -EINVAL;
}

/*
 * Parse @spec (modified) into @opt; *len is the option length padded with
 * EOL to a multiple of 4, 0 for "none".  Returns 0, -EINVAL or -E2BIG
 * with *why saying what is accepted.
 */
int pg_ip_opt_parse(char *spec, u8 *opt, unsigned int *len, const char **why)
{
	struct pg_opt_buf b = { .bytes = opt, .why = why };
	char *item;
	int err;

	memset(opt, 0, PG_IP_OPT_MAX);
	*len = 0;
	if (!strcmp(spec, "none"))
		return 0;
	while ((item = strsep(&spec, ","))) {
		err = pg_opt_one(&b, item);
		if (err)
			return err;
	}
	/* the buffer is zeroed: padding is EOL bytes */
	*len = ALIGN(b.len, 4);
	return 0;
}
