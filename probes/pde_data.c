// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_PDE_DATA: pde_data(), "proc: remove PDE_DATA()
 * completely" (v5.17; PDE_DATA() before).
 */
#include <linux/proc_fs.h>

void *pg_probe(const struct inode *inode);
void *pg_probe(const struct inode *inode)
{
	return pde_data(inode);
}
