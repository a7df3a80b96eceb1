/* SPDX-License-Identifier: GPL-2.0 */
/* What the user-mode driver core shows its KUnit tests. */
#ifndef _KERNEL_UMH_UMD_KUNIT_H
#define _KERNEL_UMH_UMD_KUNIT_H

#ifdef __KERNEL__
struct file;
struct umd_info;

int umd_nr_channels(void);
struct file *umd_channel_file(struct umd_info *info);
bool umd_request_taken(struct umd_info *info);

/* The test helper's executable, from umd_test_blob.S. */
extern char umd_test_helper_start[];
extern char umd_test_helper_end[];
#endif

/* Requests understood by umd_test_helper. */
enum umd_test_req {
	UMD_TEST_ECHO = 1,	/* reply with the payload */
	UMD_TEST_CRASH,		/* exit without a reply */
	UMD_TEST_HANG,		/* never reply */
	UMD_TEST_GARBAGE,	/* reply with a header that lies */
	UMD_TEST_SHORT,		/* reply with three bytes */
	UMD_TEST_STATUS,	/* reply with the status in the payload */
	UMD_TEST_SLOW,		/* sleep the milliseconds in the payload, echo */
	UMD_TEST_LOG,		/* write the payload to stderr, echo */
};

#endif /* _KERNEL_UMH_UMD_KUNIT_H */
