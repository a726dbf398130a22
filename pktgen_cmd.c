// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the grammar of a write to a /proc/net/pktgen file, shared by
 * every file: a copy made printable, split into a command word and its
 * value at the separators upstream accepts, decimal numbers.  The bottom
 * layer: calls nothing of pktgen's.
 */
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/uaccess.h>

#include "pktgen.h"
#include "pktgen_cmd.h"

bool pg_is_sep(char c)
{
	return c == '"' || c == '\n' || c == '\r' || c == '\t' || c == ' ' || c == '=';
}

static const char *pg_skip_seps(const char *p)
{
	while (*p && pg_is_sep(*p))
		p++;
	return p;
}

/* Length of the word at @p: up to a separator or the end of the string. */
size_t pg_word_len(const char *p)
{
	size_t n = 0;

	while (p[n] && !pg_is_sep(p[n]))
		n++;
	return n;
}

/*
 * Results echo names from the write and device names become file names:
 * every byte of a command that is neither printable ASCII nor a tab or a
 * newline becomes '?' (a carriage return, a separator, becomes a blank),
 * so what a read shows is always text.  No command word or value uses
 * such bytes, so nothing valid changes.
 */
static void pg_cmd_printable(char *cmd)
{
	for (; *cmd; cmd++) {
		if (*cmd == '\r')
			*cmd = ' ';
		else if ((*cmd < ' ' || *cmd > '~') && *cmd != '\t' && *cmd != '\n')
			*cmd = '?';
	}
}

/*
 * The one way into every /proc/net/pktgen file: who may write (the
 * privilege model of pg_may_write()), how much (1 to PG_WRITE_MAX
 * bytes), and the command as a printable NUL-terminated copy.  A NUL
 * inside the write ends the command, like the C string upstream parsed.
 * Returns the copy (kfree() it) or an ERR_PTR: -EPERM, -EINVAL (empty),
 * -E2BIG (too long), -EFAULT or -ENOMEM.
 */
char *pg_cmd_fetch(const struct file *file, const char __user *ubuf, size_t count)
{
	char *buf;

	if (!pg_may_write(file))
		return ERR_PTR(-EPERM);
	if (!count)
		return ERR_PTR(-EINVAL);
	if (count > PG_WRITE_MAX)
		return ERR_PTR(-E2BIG);
	buf = memdup_user_nul(ubuf, count);
	if (!IS_ERR(buf))
		pg_cmd_printable(buf);
	return buf;
}

/*
 * What a file's Result says when pg_cmd_fetch() refused a write, or NULL
 * when it says nothing: a writer without the right must not change what
 * others read, and a fault or no memory is not the command's fault.
 */
const char *pg_cmd_refusal(int err)
{
	switch (err) {
	case -EINVAL:
		return "empty write";
	case -E2BIG:
		return "a command is at most " __stringify(PG_WRITE_MAX) " bytes";
	default:
		return NULL;
	}
}

/*
 * Split "name<seps>value" in place.  Returns the value (possibly "") and
 * stores the name, or NULL when the name is longer than @max_name.
 */
char *pg_split_cmd(char *buf, const char **name, size_t max_name)
{
	char *p = (char *)pg_skip_seps(buf);
	size_t len = pg_word_len(p);
	char *val;

	*name = p;
	val = (char *)pg_skip_seps(p + len);
	p[len] = '\0';
	return len > max_name ? NULL : val;
}

/*
 * Split @buf in place into words at the separators.  Returns how many
 * (at most @max), or -E2BIG when there are more than @max.
 */
int pg_split_words(char *buf, char **argv, int max)
{
	char *p = (char *)pg_skip_seps(buf);
	int n = 0;

	while (*p) {
		size_t len = pg_word_len(p);

		if (n == max)
			return -E2BIG;
		argv[n++] = p;
		if (!p[len])
			break;
		p[len] = '\0';
		p = (char *)pg_skip_seps(p + len + 1);
	}
	return n;
}

/*
 * A decimal number of at most @digits digits, ending at a separator or
 * the end.  No value at all reads as 0, as upstream (and its selftest)
 * expects; anything else that is not a number is refused.
 */
int pg_parse_num(const char *val, u64 max, u64 *out)
{
	unsigned int n = 0;
	u64 v = 0;

	while (isdigit(val[n])) {
		if (n == PG_DIGITS)
			return -EINVAL;
		v = v * 10 + (val[n] - '0');
		n++;
	}
	if (val[n] && !pg_is_sep(val[n]))
		return -EINVAL;
	if (v > max)
		return -EINVAL;
	*out = v;
	return 0;
}
