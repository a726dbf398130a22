/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen_cmd.c: the write grammar every file of /proc/net/pktgen shares. */
#ifndef _PKTGEN_CMD_H
#define _PKTGEN_CMD_H

#include <linux/compiler.h>
#include <linux/types.h>

struct file;

/* Longest write every file takes, in bytes (E2BIG beyond) */
#define PG_WRITE_MAX		1023
/* Digits of a number (upstream's limit) */
#define PG_DIGITS		10
bool pg_is_sep(char c);
size_t pg_word_len(const char *p);
char *pg_cmd_fetch(const struct file *file, const char __user *ubuf, size_t count);
const char *pg_cmd_refusal(int err);
char *pg_split_cmd(char *buf, const char **name, size_t max_name);
int pg_split_words(char *buf, char **argv, int max);
int pg_parse_num(const char *val, u64 max, u64 *out);

#endif /* _PKTGEN_CMD_H */
