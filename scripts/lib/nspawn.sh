# Shared by the real-systemd tests: boot systemd as PID 1 with systemd-nspawn on a throwaway
# overlay of this machine's root, run commands inside it, and report `N passed, N failed`.
# Usage from a test script (which must run as root):
#   source scripts/lib/nspawn.sh; nspawn_enter_sandbox "$@"   # re-runs the script in its own mount namespace
#   ... install into "$ROOT" ...; nspawn_boot; check "what" cmd...; nspawn_finish

nspawn_enter_sandbox() {
  [ "$(id -u)" -eq 0 ] || { echo "$(basename "$0"): needs root (nspawn, mounts, cgroups)" >&2; exit 1; }
  command -v systemd-nspawn >/dev/null || { echo "$(basename "$0"): install systemd-container" >&2; exit 1; }
  if [ -z "${NSPAWN_SANDBOXED:-}" ]; then
    export NSPAWN_NAME=btcpriced-test-$$
    # Our own cgroups, so nspawn does not leave the container's in the host's root.
    for h in systemd unified; do
      if [ -d /sys/fs/cgroup/$h ]; then mkdir -p /sys/fs/cgroup/$h/$NSPAWN_NAME; echo $$ > /sys/fs/cgroup/$h/$NSPAWN_NAME/cgroup.procs; fi
    done
    NSPAWN_SANDBOXED=1 exec unshare --mount --propagation private bash "$0" "$@"
  fi
  NSPAWN_BASE=$(mktemp -d /tmp/btcpriced-nspawn.XXXXXX)
  mount -t tmpfs tmpfs "$NSPAWN_BASE"
  mkdir -p "$NSPAWN_BASE/upper" "$NSPAWN_BASE/work" "$NSPAWN_BASE/root"
  mount -t tmpfs tmpfs /run
  mount -t overlay overlay -o "lowerdir=/,upperdir=$NSPAWN_BASE/upper,workdir=$NSPAWN_BASE/work" "$NSPAWN_BASE/root"
  ROOT=$NSPAWN_BASE/root
  rm -f "$ROOT/etc/machine-id"; : > "$ROOT/etc/machine-id"
  passed=0; failed=0
}

nspawn_boot() {
  systemd-nspawn -D "$ROOT" --private-network --register=no --keep-unit -M "$NSPAWN_NAME" -b -- systemd.unit=basic.target \
    > "$NSPAWN_BASE/console.log" 2>&1 &
  nspawn_pid=$!
  leader=""
  for _ in $(seq 400); do
    for c in $(pgrep -P $nspawn_pid); do [ "$(cat /proc/$c/comm 2>/dev/null)" = systemd ] && leader=$c; done
    [ -n "$leader" ] && [ -e /proc/$leader/root/run/systemd/private ] && break
    sleep 0.05
  done
  trap nspawn_stop EXIT
  if [ -z "$leader" ]; then
    echo "the container did not boot"; tail -20 "$NSPAWN_BASE/console.log"; echo "0 passed, 1 failed"; exit 1
  fi
  inside systemctl is-system-running --wait >/dev/null 2>&1 || true
}

# SIGTERM, twice if needed; never SIGKILL nspawn, which would orphan the container's systemd.
nspawn_stop() {
  kill -TERM $nspawn_pid 2>/dev/null
  for _ in $(seq 100); do kill -0 $nspawn_pid 2>/dev/null || break; sleep 0.1; done
  kill -TERM $nspawn_pid 2>/dev/null
  wait $nspawn_pid 2>/dev/null
}

inside() { nsenter -t "$leader" -a "$@"; }
as_user() { inside setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
prop() { inside systemctl show -P "$2" "$1"; }
prop_is() { [ "$(prop "$1" "$2")" = "$3" ]; }
prop_at_least() { [ "$(prop "$1" "$2")" -ge "$3" ]; }
# Callers match with `grep PATTERN >/dev/null`, not `grep -q`: under pipefail an early-exiting
# grep makes journalctl die of SIGPIPE, and the check fails at random.
journal_text() { inside journalctl -u "$1" -o cat --no-pager; }
eventually() { local tries=$1; shift; for _ in $(seq "$tries"); do "$@" && return 0; sleep 0.1; done; "$@"; }
check() {
  local what=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok   - $what"; else failed=$((failed + 1)); echo "FAIL - $what"; fi
}

# Starts the fake exchange inside the container (its network is private).
start_fake_exchange() {
  inside systemd-run --quiet --unit fake-exchange /usr/local/bin/fake-exchange 18080
  eventually 50 inside curl -sf -o /dev/null "http://127.0.0.1:18080/_control/stats"
}

nspawn_finish() {
  local label=$1
  if [ "$failed" -gt 0 ]; then echo "---- journal (last 60 lines)"; inside journalctl --no-pager | tail -60; fi
  echo "$label: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
