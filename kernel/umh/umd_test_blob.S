/* SPDX-License-Identifier: GPL-2.0 */
	.section .rodata, "a"
	.global umd_test_helper_start
umd_test_helper_start:
	.incbin "kernel/umh/umd_test_helper"
	.global umd_test_helper_end
umd_test_helper_end:
