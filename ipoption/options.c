// SPDX-License-Identifier: GPL-2.0
/*
 * pf_ipoption: the walk of an IPv4 header's options, shared by the
 * classifier and the socket family.  It reads at most the option bytes it
 * is given and classifies each option by type (ipoption.h's enum ipo_type),
 * so a packet with options costs one pass whoever looks at it.
 */
#include <linux/bits.h>
#include <linux/ip.h>
#include <net/ip.h>

#include "ipoption.h"

/* RR, LSRR, SSRR: a pointer (>= 4) to a 4-byte slot inside, or past the end (full). */
static bool ipo_route_ok(const u8 *o, unsigned int olen)
{
	return olen >= 3 && o[2] >= IPOPT_MINOFF && (o[2] > olen || o[2] + 3 <= olen);
}

/* TS: as RR, from 5, with 4- or 8-byte slots by the flag (RFC 791). */
static bool ipo_ts_ok(const u8 *o, unsigned int olen)
{
	unsigned int slot;

	if (olen < 4 || o[2] < IPOPT_MINOFF + 1)
		return false;
	if (o[2] > olen)
		return true;
	switch (o[3] & 0x0f) {
	case IPOPT_TS_TSONLY:
		slot = 4;
		break;
	case IPOPT_TS_TSANDADDR:
	case IPOPT_TS_PRESPEC:
		slot = 8;
		break;
	default:
		return false;
	}
	return o[2] + slot - 1 <= olen;
}

/* The type of one well-formed option, or IPO_MALFORMED. */
static enum ipo_type ipo_type_of(const u8 *o, unsigned int olen)
{
	switch (o[0]) {
	case IPOPT_RR:
		return ipo_route_ok(o, olen) ? IPO_RR : IPO_MALFORMED;
	case IPOPT_LSRR:
		return ipo_route_ok(o, olen) ? IPO_LSRR : IPO_MALFORMED;
	case IPOPT_SSRR:
		return ipo_route_ok(o, olen) ? IPO_SSRR : IPO_MALFORMED;
	case IPOPT_TS:
		return ipo_ts_ok(o, olen) ? IPO_TS : IPO_MALFORMED;
	case IPOPT_SEC:
		return IPO_SEC;
	case IPOPT_RA:
		if (olen != 4)
			return IPO_MALFORMED;
		return o[2] || o[3] ? IPO_RA_OTHER : IPO_RA;
	default:
		return IPO_OTHER;
	}
}

/*
 * Walk the @len option bytes.  Types are noted in the order they appear;
 * the walk stops at EOL or at the first option that does not parse (a
 * length that is missing, below 2 or past the header, a pointer out of
 * range), which counts as malformed, not as its own type.
 */
void ipo_parse(const u8 *opt, unsigned int len, struct ipo_pkt *p)
{
	unsigned int off = 0, olen;
	enum ipo_type t;

	while (off < len) {
		if (opt[off] == IPOPT_END)
			return;
		if (opt[off] == IPOPT_NOOP) {
			off++;
			continue;
		}
		if (len - off < 2 || opt[off + 1] < 2 || opt[off + 1] > len - off) {
			ipo_seen(p, IPO_MALFORMED);
			return;
		}
		olen = opt[off + 1];
		t = ipo_type_of(opt + off, olen);
		ipo_seen(p, t);
		if (t == IPO_MALFORMED)
			return;
		off += olen;
	}
}
