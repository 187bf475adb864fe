// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* The library used from a clone compiles the firmware's own node; stage.sh
 * puts the file itself here in the zip. */
#include "../../phyllo_node.c"
