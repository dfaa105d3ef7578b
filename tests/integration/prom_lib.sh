# tests/integration/prom_lib.sh: a real Prometheus (Debian's) for the
# metrics tests, sourced after lib.sh and t_setup.
#
#   MPORT=$(free_port); t_mount --metrics 127.0.0.1:$MPORT
#   prom_start "$MPORT"      # scrapes every second; API set; returns once
#                            # the target has been scraped
#   prom_value 'QUERY'       # the instant value of a one-series query

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

prom_start() {
	local pport i
	pport=$(free_port)
	cat >"$T/prometheus.yml" <<-YML
		global:
		  scrape_interval: 1s
		  evaluation_interval: 1s
		scrape_configs:
		  - job_name: arraysim
		    static_configs:
		      - targets: ['127.0.0.1:$1']
	YML
	prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom" \
		--web.listen-address="127.0.0.1:$pport" --log.level=warn >"$T/prometheus.log" 2>&1 &
	T_PIDS+=($!)
	API="http://127.0.0.1:$pport/api/v1"
	# Wait (bounded) until Prometheus has scraped the target once.
	for ((i = 0; i < 100; i++)); do
		curl -sf "$API/query?query=up" 2>/dev/null | grep -q '"value":\[[0-9.]*,"1"\]' && return 0
		sleep 0.2
	done
	t_fail "Prometheus never scraped the target ($(tail -3 "$T/prometheus.log"))"
}

# prom_value QUERY: the value of the query's one series now, or "none".
prom_value() {
	python3 - "$API" "$1" <<-'PY'
	import json, sys, urllib.parse, urllib.request
	q = urllib.parse.urlencode({"query": sys.argv[2]})
	r = json.load(urllib.request.urlopen(f"{sys.argv[1]}/query?{q}"))["data"]["result"]
	print(r[0]["value"][1] if len(r) == 1 else "none")
	PY
}
