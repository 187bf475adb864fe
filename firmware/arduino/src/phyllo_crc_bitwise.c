// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* The library used from a clone compiles the core's own file; stage.sh
 * puts the file itself here in the zip. */
#include "../../../core/phyllo_crc_bitwise.c"
