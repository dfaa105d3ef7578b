#!/usr/bin/env bash
# tests/tools/man_completion.sh: the generated man pages and bash completion
# say what the parsers take (issue 18, point 1).
#
# Man: every command of `arraysim --help` has a page in the build, `man -l`
# renders each without warnings, and the options arraysim-CMD(1) lists are
# exactly those `arraysim CMD --help` shows. Completion: the generated script
# completes commands, options, profile names and the mountpoint of a live
# arraysim mount (bash's own completion machinery: COMP_WORDS and _arraysim).
set -euo pipefail
. "$(dirname "$0")/../integration/lib.sh"
t_require_cmd man col

BUILD=$(cd "$(dirname "$ARRAYSIM")/.." && pwd)
t_setup

# The long options of a text: every --word, sorted, one a line.
long_opts() { { grep -o -- '--[a-z][a-z-]*' || true; } | sort -u; }

cmds=$("$ARRAYSIM" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] || t_fail "arraysim --help lists no commands"
for c in $cmds; do
	page="$BUILD/tools/arraysim-$c.1"
	[ -s "$page" ] || t_fail "no man page $page for command $c"
	warn=$(MANWIDTH=200 man --warnings -l "$page" 2>&1 >"$T/$c.txt") || t_fail "man -l $page exited $?"
	[ -z "$warn" ] || t_fail "man -l $page warns: $warn"
	# Only what the OPTIONS section lists (the page's prose names others).
	sed -n '/^OPTIONS/,/^[A-Z]/p' "$T/$c.txt" | col -b | long_opts >"$T/$c.man"
	"$ARRAYSIM" "$c" --help | sed -n '/^options:/,$p' | long_opts | grep -vx -- --help >"$T/$c.help" || true
	diff "$T/$c.help" "$T/$c.man" >&2 || t_fail "arraysim-$c(1) and '$c --help' list different options (diff above: < help, > man)"
done
[ "$(wc -l <"$T/mount.help")" -ge 10 ] || t_fail "mount --help shows under 10 options"
for p in arraysim.1 arraysim-profile.5 arraysim-scenario.5; do
	warn=$(man --warnings -l "$BUILD/tools/$p" 2>&1 >"$T/page.txt") || t_fail "man -l $p exited $?"
	[ -z "$warn" ] || t_fail "man -l $p warns: $warn"
done
MANWIDTH=200 man -l "$BUILD/tools/arraysim-profile.5" | col -b >"$T/profile5.txt"
grep -q 'write_cache = one of none|unmirrored|mirrored' "$T/profile5.txt" \
	|| t_fail "arraysim-profile(5) lacks write_cache and its values"
t_log "man pages: $(echo $cmds | wc -w) commands, options equal to --help"

# complete WORD...: the completions of the last WORD after `arraysim WORD...`
# (the built arraysim on PATH, as an installed one would be).
complete_words() {
	PATH="$(dirname "$ARRAYSIM"):$PATH" bash -c '. "$1"; shift; COMP_WORDS=(arraysim "$@"); COMP_CWORD=$#
		_arraysim; printf "%s\n" "${COMPREPLY[@]}"' _ "$BUILD/arraysim" "$@"
}
has() { grep -qx -- "$2" <<<"$1" || t_fail "completing '$3' gave no '$2' (got: $(echo $1))"; }
has "$(complete_words st)" stats "arraysim st"
has "$(complete_words mount --pro)" --profile "arraysim mount --pro"
has "$(complete_words mount --profile tin)" tintri-t540 "arraysim mount --profile tin"
has "$(complete_words fsck --re)" --repair "arraysim fsck --re"
t_mount
has "$(complete_words stats "")" "$MNT" "arraysim stats (a mount)"
has "$(complete_words ctl "$MNT" st)" status "arraysim ctl MNT st"
t_umount
t_log "ok"
