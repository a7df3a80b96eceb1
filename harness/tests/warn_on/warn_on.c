// SPDX-License-Identifier: GPL-2.0
/*
 * A module that warns when loaded: ./build.sh test loads it in the guest
 * to prove that the VM runner fails a run whose kernel log has a WARN.
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init warn_on_init(void)
{
	WARN_ON(1);
	return 0;
}

static void __exit warn_on_exit(void)
{
}

module_init(warn_on_init);
module_exit(warn_on_exit);
MODULE_DESCRIPTION("WARN_ON(1) at load, to test the test runner");
MODULE_LICENSE("GPL");
