# SPDX-License-Identifier: MIT
"""Machine-description files (timing/presets/*.desc) as the report's sections
read them: the keys a file sets, and the file a profile string loads."""
from __future__ import annotations

import os
from collections import OrderedDict
from typing import Optional


def preset_keys(path: Optional[str]) -> "OrderedDict[str, str]":
    """The keys a .desc file sets, in order ({key: value text}; comments and
    blank lines dropped); empty for no file."""
    keys = OrderedDict()
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if "=" in line:
                    k, v = line.split("=", 1)
                    keys[k.strip()] = v.strip()
    return keys


def preset_file(root: str, profile: str) -> Optional[str]:
    """The machine-description file a profile string loads last (server=NAME
    or desc_file=PATH, relative to the source tree), or None."""
    found = None
    for item in profile.split(","):
        k, _, v = item.partition("=")
        k, v = k.strip(), v.strip()
        if k == "server":
            found = os.path.join(root, "timing", "presets", "server-%s.desc" % v)
        elif k == "desc_file":
            found = v if os.path.isabs(v) else os.path.join(root, v)
    return found
