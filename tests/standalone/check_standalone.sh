#!/bin/bash
# SPDX-License-Identifier: MIT
# The repository stands alone: its tracked files may not point outside it (the
# ../shared notes, a developer's machine), nor to the development's issue or
# session numbers, nor to the papers by their private numbers ("paper 000"):
# published sources are cited by the keys of docs/references.md and the
# calibration facts as "calibration-sources §N" (docs/calibration-sources.md).
#
#   check_standalone.sh REPO          checks the tracked files of REPO
#   check_standalone.sh --self-test   plants each kind of violation in a
#                                     scratch repository and expects a failure,
#                                     and a clean (whitelisted) file to pass
# Exit 0 when clean, 1 with the offending lines, 77 (skipped) when REPO is not
# a git checkout (a source tarball: nothing to list).
set -u

# pattern | what it means (case-insensitive, extended regular expressions)
RULES=(
  '\bpapers? 00[0-4]\b|a paper by its private number: use its key ([Jonatan24], [PIDComm], [XferStudy], [vPIM], [DRAMatic])'
  '\bref §|"ref §N" names a file outside the repository: cite "calibration-sources §N"'
  '\.\./shared|a path outside the repository'
  '/work/shared|a path on a development machine'
  '\bshared/(reference|papers|calibration|prim-benchmarks)\b|the development notes, not in the repository'
  '\bissues? #?[0-9]+|an issue number of the development (third-party: write "GitHub issue #N of PROJECT")'
  '\bsessions? [0-9]+\b|a development session'
)
# Notes that live outside the repository: cited by name only while no tracked file has that name.
NOTES='timing-calibration.md upmem-sdk.md pid-comm.md vpim.md he-on-pim.md vm-vsock.md DESIGN.md STYLE.md'
# Narrow whitelist: a third-party project's issue, cited as "GitHub issue #N".
WHITELIST='github issues? #[0-9]+'

check() { # $1 = repository; prints offending lines, returns 1 if any
    local repo=$1 bad=0 rule pat why hits name
    for rule in "${RULES[@]}"; do
        # the last '|' separates the pattern from its explanation
        pat=${rule%|*}; why=${rule##*|}
        hits=$(git -C "$repo" grep -n -I -i -E -e "$pat" -- . ':(exclude)tests/standalone' \
               | grep -v -i -E -e "$WHITELIST" || true)
        if [ -n "$hits" ]; then
            printf '%s\n' "== $why:" "$hits" | head -n 40
            [ "$(printf '%s\n' "$hits" | wc -l)" -gt 39 ] && echo "   ... ($(printf '%s\n' "$hits" | wc -l) lines)"
            bad=1
        fi
    done
    for name in $NOTES; do
        if ! git -C "$repo" ls-files | grep -q -E "(^|/)${name//./\\.}\$"; then
            hits=$(git -C "$repo" grep -n -I -F -e "$name" -- . ':(exclude)tests/standalone' || true)
            if [ -n "$hits" ]; then
                printf '%s\n' "== $name is not in the repository (cite the fact's published source or docs/):" "$hits" | head -n 40
                bad=1
            fi
        fi
    done
    return $bad
}

self_test() {
    local rc=0 i line
    tmp=$(mktemp -d) || exit 1
    trap 'rm -rf "$tmp"' EXIT
    git -C "$tmp" init -q
    printf 'cites [Jonatan24] and calibration-sources §3.3; GitHub issue #12 of uPIMulator\n' > "$tmp/clean.md"
    printf 'a session holds ranks; the paper 0001 series; issues are rare\n' >> "$tmp/clean.md"
    git -C "$tmp" add clean.md
    if ! check "$tmp" >/dev/null; then echo "FAIL: a clean file was refused:"; check "$tmp"; rc=1; fi
    i=0
    for line in 'as paper 001 says' "Paper 000's figure" 'papers 000/001' 'the constant (ref §3.3)' \
                'see ../shared/DESIGN.md' 'in /work/shared/papers' 'shared/reference/x.md' \
                'the figure of issue 8' 'Issue 12 added it' 'session 5 measured' 'see DESIGN.md'; do
        i=$((i + 1))
        printf '%s\n' "$line" > "$tmp/bad$i.c"
        git -C "$tmp" add "bad$i.c"
        if check "$tmp" >/dev/null; then echo "FAIL: not caught: $line"; rc=1; fi
        git -C "$tmp" rm -q -f "bad$i.c"
    done
    [ $rc -eq 0 ] && echo "self-test: $i planted violations caught, the clean file passes"
    return $rc
}

case "${1:-}" in
    --self-test) self_test; exit $? ;;
    '') echo "usage: $0 REPO | --self-test" >&2; exit 2 ;;
esac
if ! git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "SKIP: $1 is not a git checkout"
    exit 77
fi
if check "$1"; then
    echo "standalone: no pointer outside the repository, no issue/session number, no 'paper 00N', no 'ref §N'"
    exit 0
fi
exit 1
