# SPDX-License-Identifier: MIT
"""The report's tests: the framework (openpim_report) from report/, the build
folder of the SDK from $OPENPIM_BUILD_DIR (CTest sets it)."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.dirname(HERE)
ROOT = os.path.dirname(REPORT)
sys.path.insert(0, REPORT)


@pytest.fixture
def build_dir():
    b = os.environ.get("OPENPIM_BUILD_DIR", "")
    if not b or not os.path.isdir(os.path.join(b, "sdk")):
        pytest.fail("OPENPIM_BUILD_DIR must name a built OpenPIM tree (got %r)" % b)
    return b
