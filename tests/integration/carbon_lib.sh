# tests/integration/carbon_lib.sh: a real carbon-cache (Debian's
# graphite-carbon) for the Graphite tests, sourced after lib.sh,
# prom_lib.sh (free_port) and t_setup.
#
#   carbon_start             # CPORT: its plaintext line port; returns once
#                            # it accepts; whisper files under $T/whisper
#   carbon_stop              # ends it (the port stays CPORT for a restart)
#   carbon_value PATH        # the newest stored value of a dotted path, or
#                            # "none"

carbon_start() {
	local i
	CPORT=${CPORT:-$(free_port)}
	mkdir -p "$T/carbon" "$T/whisper"
	cat >"$T/carbon/carbon.conf" <<-CONF
		[cache]
		STORAGE_DIR = $T/carbon
		LOCAL_DATA_DIR = $T/whisper
		WHITELISTS_DIR = $T/carbon/lists
		CONF_DIR = $T/carbon
		LOG_DIR = $T/carbon
		PID_DIR = $T/carbon
		ENABLE_LOGROTATION = False
		USER =
		MAX_CACHE_SIZE = inf
		MAX_UPDATES_PER_SECOND = inf
		MAX_CREATES_PER_MINUTE = inf
		LINE_RECEIVER_INTERFACE = 127.0.0.1
		LINE_RECEIVER_PORT = $CPORT
		ENABLE_UDP_LISTENER = False
		PICKLE_RECEIVER_INTERFACE = 127.0.0.1
		PICKLE_RECEIVER_PORT = $(free_port)
		CACHE_QUERY_INTERFACE = 127.0.0.1
		CACHE_QUERY_PORT = $(free_port)
		ENABLE_TAGS = False
		LOG_UPDATES = False
	CONF
	# One value a second, as arraysim pushes, kept for an hour.
	printf '[all]\npattern = .*\nretentions = 1s:1h\n' >"$T/carbon/storage-schemas.conf"
	carbon-cache --config="$T/carbon/carbon.conf" --debug start >>"$T/carbon.log" 2>&1 &
	CARBON_PID=$!
	T_PIDS+=("$CARBON_PID")
	for ((i = 0; i < 100; i++)); do
		python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' \
			"$CPORT" 2>/dev/null && return 0
		sleep 0.2
	done
	t_fail "carbon-cache never listened on $CPORT ($(tail -3 "$T/carbon.log"))"
}

carbon_stop() {
	kill -TERM "$CARBON_PID" 2>/dev/null || true
	t_wait_pid_exit "$CARBON_PID" 20 || kill -KILL "$CARBON_PID" 2>/dev/null || true
	# carbon-cache leaves its pid file; a restart refuses while it exists.
	rm -f "$T/carbon/"*.pid
}

carbon_value() {
	local f="$T/whisper/${1//.//}.wsp"
	[ -f "$f" ] || { echo none; return; }
	whisper-fetch --from=$(($(date +%s) - 600)) "$f" 2>/dev/null |
		awk '$2 != "None" { v = $2 } END { print (v == "" ? "none" : v) }'
}
