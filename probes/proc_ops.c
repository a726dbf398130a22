// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_PROC_OPS (required): struct proc_ops, "proc:
 * decouple proc from VFS with "struct proc_ops"" (v5.6).
 */
#include <linux/proc_fs.h>

const struct proc_ops pg_probe = { .proc_lseek = NULL };
