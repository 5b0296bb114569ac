# SPDX-License-Identifier: MIT
"""The exception of the API."""


class DpuError(Exception):
    """Error raised by the API.

    Attributes:
        code (int or None): the C API's dpu_error_t value, None when the
            Python layer refused the call before reaching libdpu
    """

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code
