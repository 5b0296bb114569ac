/* SPDX-License-Identifier: MIT */
/* Compiled WITH the plugin at -O0 (every function optnone): the pass must run
 * there too, and the division guard must work without optimisation. */
int t_o0_add(int a, int b) { return a + b; }
int t_o0_div(int a, int b) { return a / b; }
/* zext(trunc(load)) to a byte, the unoptimised form of a byte mask: an lbu */
unsigned t_o0_byte(const unsigned *p) { return (unsigned char)p[1]; }
