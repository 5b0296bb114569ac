/* SPDX-License-Identifier: MIT */
/* Reached through -I: the sources include it by name only. */
#define FLAG_CFG_MARK 100
