# shellcheck shell=bash
# Helpers of the report tests (sourced after lib.sh and t_setup).

# t_render PAGE PNG: headless Chromium screenshots PAGE into PNG; its log
# (console messages included) goes to $T/chromium.log.
t_render() {
	timeout 120 chromium --headless=new --no-sandbox --disable-gpu \
		--user-data-dir="$T/chromium-profile" --enable-logging=stderr --v=0 \
		--screenshot="$2" --window-size=1400,2400 "file://$1" \
		>"$T/chromium.out" 2>"$T/chromium.log" || {
		cat "$T/chromium.log" >&2
		t_fail "chromium exited $?"
	}
}

# t_console_errors: the console errors of the last t_render.
t_console_errors() { grep -E 'Uncaught|CONSOLE|console' "$T/chromium.log" || true; }

# t_event_times EVENTS: the time of the first inject and of the last
# clear in an event log, as "INJECT CLEAR".
t_event_times() {
	python3 - "$1" <<-'PY'
	import json, sys
	ev = [json.loads(l) for l in open(sys.argv[1])]
	inj = [e["t"] for e in ev if e["event"] == "inject"]
	clr = [e["t"] for e in ev if e["event"] == "clear"]
	print(inj[0], clr[-1])
	PY
}

# t_check_labels PAGE: no two labels of a chart overlap, as the page
# emits them and, with chromium, as it renders them (a probe copy of the
# page reports its label boxes in Chromium's --dump-dom).
t_check_labels() {
	local check=(python3 "$ARRAYSIM_SRC/tests/integration/report_check.py")
	"${check[@]}" labels "$1" >&2 || t_fail "label layout (above)"
	command -v chromium >/dev/null 2>&1 || return 0
	"${check[@]}" probe "$1" "$T/probe.html"
	timeout 120 chromium --headless=new --no-sandbox --disable-gpu \
		--user-data-dir="$T/chromium-profile" --window-size=1400,2400 \
		--dump-dom "file://$T/probe.html" >"$T/probe.dom" 2>"$T/probe.log" || {
		cat "$T/probe.log" >&2
		t_fail "chromium --dump-dom exited $?"
	}
	"${check[@]}" rendered "$T/probe.dom" >&2 || t_fail "rendered labels (above)"
}
