# SPDX-License-Identifier: MIT
# Source this file (". /path/to/sdk/upmem_env.sh") to build UPMEM projects with
# OpenPIM: it puts dpu-upmem-dpurte-clang and dpu-pkg-config on PATH (and the
# Python package `dpu` on PYTHONPATH), like the
# UPMEM SDK's script of the same name.  An argument (e.g. "simulator") is accepted
# and ignored: every backend is the emulated machine.
if [ -n "${BASH_SOURCE[0]:-}" ]; then _op_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
else _op_here=$(cd "$(dirname "$0")" && pwd); fi
export UPMEM_HOME="$_op_here"
export OPENPIM_HOME="$_op_here"
case ":$PATH:" in *":$_op_here/bin:"*) ;; *) export PATH="$_op_here/bin:$PATH" ;; esac
case ":${LD_LIBRARY_PATH:-}:" in *":$_op_here/lib:"*) ;; *) export LD_LIBRARY_PATH="$_op_here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;; esac
case ":${PYTHONPATH:-}:" in *":$_op_here/lib/python3/dist-packages:"*) ;; *) export PYTHONPATH="$_op_here/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}" ;; esac
unset _op_here
