#!/usr/bin/env bash
# mount_capture_output: `arraysim mount` run the way CI runs a step, its
# pipes captured (issue 13, point 2). The daemon used to keep a dup of the
# caller's stderr for its whole life, so subprocess.run(capture_output=True),
# x=$(arraysim mount ... 2>&1) and `| tee` waited until the unmount. Once
# mounted the daemon holds none of the caller's descriptors; a failing mount
# still prints its one `arraysim:` line through the parent and exits 2.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t_setup
python3 - "$ARRAYSIM" "$STORE" "$MNT" "$T" <<-'PY' || t_fail "mount under captured pipes (above)"
	import os, subprocess, sys
	arraysim, store, mnt, tmp = sys.argv[1:5]

	# 1. capture_output: returns as soon as the mount is up.
	try:
	    p = subprocess.run([arraysim, "mount", "--store", store, mnt],
	                       capture_output=True, timeout=20)
	except subprocess.TimeoutExpired:
	    sys.exit("mount under capture_output=True still holds the pipes after 20 s")
	assert p.returncode == 0, "mount exited %d: %r" % (p.returncode, p.stderr)
	pid = int(open(os.path.join(store, "lock")).readline())

	# 2. None of the caller's pipes in the daemon's descriptors: pipes of
	# our own as stdin, stdout and stderr, matched by inode.
	mine = set()
	fds = []
	for _ in range(3):
	    r, w = os.pipe()
	    fds += [r, w]
	    mine.add(os.fstat(r).st_ino)
	held = []
	for fd in os.listdir("/proc/%d/fd" % pid):
	    try:
	        link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
	    except OSError:
	        continue
	    if link.startswith("pipe:[") and int(link[6:-1]) in mine:
	        held.append(fd)
	# (the mount above had Python's own pipes: check the daemon's std
	# descriptors are not pipes at all)
	for fd in ("0", "1", "2"):
	    link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
	    assert not link.startswith("pipe:"), "daemon fd %s is %s" % (fd, link)
	subprocess.run([arraysim, "umount", mnt], check=True, timeout=30)
	for _ in range(300):
	    if not os.path.exists("/proc/%d" % pid):
	        break
	    import time; time.sleep(0.1)

	# The same with pipes we own, matched by inode in /proc/PID/fd.
	p = subprocess.run([arraysim, "mount", "--store", store, mnt],
	                   stdin=fds[0], stdout=fds[3], stderr=fds[5], timeout=20)
	assert p.returncode == 0, "mount exited %d" % p.returncode
	pid = int(open(os.path.join(store, "lock")).readline())
	for fd in os.listdir("/proc/%d/fd" % pid):
	    try:
	        link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
	    except OSError:
	        continue
	    if link.startswith("pipe:[") and int(link[6:-1]) in mine:
	        held.append("%s (%s)" % (fd, link))
	assert not held, "the daemon holds the caller's pipes: fds %s" % held
	subprocess.run([arraysim, "umount", mnt], check=True, timeout=30)

	# 3. A mount that fails in the daemon, after FUSE mounted (its metrics
	# port is taken): one line through the parent, exit 2, no hang.
	import socket
	sock = socket.socket()
	sock.bind(("127.0.0.1", 0))
	sock.listen()
	port = sock.getsockname()[1]
	try:
	    p = subprocess.run([arraysim, "mount", "--store", store, "--metrics",
	                        "127.0.0.1:%d" % port, mnt],
	                       capture_output=True, timeout=20)
	except subprocess.TimeoutExpired:
	    sys.exit("a failing mount under capture_output=True hung")
	sock.close()
	err = p.stderr.decode()
	print("# failing mount: exit %d, stderr %r" % (p.returncode, err), file=sys.stderr)
	assert p.returncode == 2, "failing mount exited %d" % p.returncode
	lines = err.splitlines()
	assert len(lines) == 1 and lines[0].startswith("arraysim: "), "stderr %r" % err
	assert p.stdout == b"", "stdout %r" % p.stdout
	PY
t_log "ok"
