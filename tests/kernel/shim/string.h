/* SPDX-License-Identifier: GPL-2.0-only */
/* string.h (KUnit shim) - the core suites' <string.h> is the kernel's. */
#include <linux/string.h>
