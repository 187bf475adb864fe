/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* The library used from a clone reads the firmware's own node header;
 * stage.sh puts the file itself here in the zip. */
#include "../../phyllo_node.h"
