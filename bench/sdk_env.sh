# SPDX-License-Identifier: MIT
# Sourced by the benchmark scripts: puts the OpenPIM SDK of the build folder
# given as $1 (default: build/ of this checkout) on PATH and makes $work, a
# scratch folder removed at exit.
build=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build}
source "$build/sdk/upmem_env.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
