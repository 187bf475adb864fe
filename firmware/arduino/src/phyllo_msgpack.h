/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* The library used from a clone reads the core's own header; stage.sh
 * puts the file itself here in the zip. */
#include "../../../core/phyllo_msgpack.h"
