/* SPDX-License-Identifier: MIT */
/* Does nothing: a launch costs only its round trip and the machine's start. */
int main(void)
{
    return 0;
}
