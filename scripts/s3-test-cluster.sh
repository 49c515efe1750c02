#!/usr/bin/env bash
# A one-node Ceph cluster serving S3 on 127.0.0.1, for the S3 tests: a monitor, one BlueStore OSD
# on a sparse file and a RADOS Gateway, started without systemd from Debian's packages.
#   scripts/s3-test-cluster.sh start    ready in ~20 s (a restart over its data in ~7 s); idempotent
#   scripts/s3-test-cluster.sh stop     stops the daemons (by pid file, checking each process's name)
#   scripts/s3-test-cluster.sh purge    stops them and deletes the cluster's data
#   scripts/s3-test-cluster.sh env      prints the endpoint and keys as shell assignments
# Settings (environment): S3_CLUSTER_DIR (/tmp/memories-s3-cluster), S3_CLUSTER_PORT (7480),
# S3_CLUSTER_MON_PORT (3300), S3_CLUSTER_OSD_SIZE (10G, sparse). Keys: testaccesskey/testsecretkey.
# Packages: ceph-mon ceph-osd radosgw ceph-common (scripts/setup.sh --s3). No manager daemon: the
# gateway does not need one, and it would take ~285 MB.
# Pitfalls this handles: one OSD needs pool size 1 and few PGs (else the cluster is never healthy and
# writes hang); `tcp_nodelay=1` on the gateway's frontend (without it a small GET waits ~40 ms for
# Nagle and delayed ACKs); the monitor speaks msgr2 only, on 127.0.0.1.
set -euo pipefail
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
dir=${S3_CLUSTER_DIR:-/tmp/memories-s3-cluster}
port=${S3_CLUSTER_PORT:-7480}
mon_port=${S3_CLUSTER_MON_PORT:-3300}
osd_size=${S3_CLUSTER_OSD_SIZE:-10G}
access_key=testaccesskey secret_key=testsecretkey
conf=$dir/ceph.conf
ceph_cmd=(ceph -c "$conf" --connect-timeout 20)

say() { echo "s3-test-cluster: $*" >&2; }
die() { say "$*"; exit 1; }

# running NAME BINARY: the pid file names a live process of that binary.
running() {
  local file=$dir/run/$1.pid pid
  [ -s "$file" ] || return 1
  pid=$(cat "$file")
  [ -d "/proc/$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]
}

# wait_for SECONDS WHAT COMMAND...
wait_for() {
  local seconds=$1 what=$2
  shift 2
  for _ in $(seq "$seconds"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  die "no $what after ${seconds} s (logs in $dir/log)"
}

stop_one() {
  local file=$dir/run/$1.pid pid
  [ -s "$file" ] || return 0
  pid=$(cat "$file")
  if [ -d "/proc/$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 30); do [ -d "/proc/$pid" ] || break; sleep 0.5; done
    [ -d "/proc/$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

bootstrap() {
  say "making a new cluster in $dir"
  rm -rf "$dir"
  mkdir -p "$dir"/{run,log,mon,osd,rgw}
  local fsid
  fsid=$(cat /proc/sys/kernel/random/uuid)
  cat > "$conf" <<EOF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$mon_port]
mon initial members = a
public network = 127.0.0.0/8
ms bind ipv6 = false
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
auth allow insecure global id reclaim = false
keyring = $dir/keyring
run dir = $dir/run
pid file = $dir/run/\$name.pid
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
mon cluster log file = $dir/log/cluster.log
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon max pg per osd = 1000
mon warn on pool no redundancy = false
mon data avail warn = 5
[mon]
mon data = $dir/mon/\$cluster-\$id
[osd]
osd data = $dir/osd/\$cluster-\$id
osd objectstore = bluestore
bluestore block create = true
bluestore block size = $osd_size
osd memory target = 1073741824
[client.rgw.a]
rgw data = $dir/rgw
rgw frontends = beast endpoint=127.0.0.1:$port tcp_nodelay=1
rgw dns name = localhost
EOF
  local keyring=$dir/keyring
  ceph-authtool --create-keyring "$keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool "$keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' >/dev/null
  ceph-authtool "$keyring" --gen-key -n osd.0 --cap mon 'allow profile osd' --cap osd 'allow *' --cap mgr 'allow profile osd' >/dev/null
  ceph-authtool "$keyring" --gen-key -n client.rgw.a --cap mon 'allow rw' --cap osd 'allow rwx' --cap mgr 'allow rw' >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" >/dev/null
  ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$keyring" >/dev/null 2>&1 || die "ceph-mon --mkfs failed"
}

start() {
  for binary in ceph-mon ceph-osd radosgw radosgw-admin ceph-authtool monmaptool ceph curl; do
    command -v "$binary" >/dev/null || die "$binary is missing: scripts/setup.sh --s3 (apt-get install ceph-mon ceph-osd radosgw ceph-common curl)"
  done
  [ -s "$dir/mon/ceph-a/store.db/CURRENT" ] || bootstrap
  export CEPH_CONF=$conf
  running mon.a ceph-mon || ceph-mon -c "$conf" -i a
  wait_for 60 "monitor" "${ceph_cmd[@]}" mon stat
  if [ ! -s "$dir/osd/ceph-0/fsid" ]; then
    rm -rf "$dir/osd/ceph-0"
    mkdir -p "$dir/osd/ceph-0"
    local uuid id
    uuid=$(cat /proc/sys/kernel/random/uuid)
    id=$("${ceph_cmd[@]}" osd new "$uuid" 0)
    [ "$id" = 0 ] || die "ceph osd new gave '$id'"
    ceph-osd -c "$conf" -i 0 --mkfs --osd-uuid "$uuid" > "$dir/log/osd-mkfs.log" 2>&1 || die "OSD mkfs failed (see $dir/log/osd-mkfs.log)"
  fi
  running osd.0 ceph-osd || ceph-osd -c "$conf" -i 0 2>> "$dir/log/osd.0.stderr.log"
  osd_up() { "${ceph_cmd[@]}" osd dump 2>/dev/null | grep -q '^osd.0 up'; }
  wait_for 120 "OSD" osd_up
  running client.rgw.a radosgw || radosgw -c "$conf" -n client.rgw.a
  wait_for 120 "gateway on port $port" curl -sf -o /dev/null "http://127.0.0.1:$port/"
  if ! radosgw-admin -c "$conf" user info --uid=test >/dev/null 2>&1; then
    radosgw-admin -c "$conf" user create --uid=test --display-name="memories tests" \
      --access-key="$access_key" --secret-key="$secret_key" >/dev/null
  fi
  say "ready: http://127.0.0.1:$port (access key $access_key)"
}

stop() {
  stop_one client.rgw.a radosgw
  stop_one osd.0 ceph-osd
  stop_one mon.a ceph-mon
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  purge) stop; rm -rf "$dir" ;;
  env) echo "S3_TEST_ENDPOINT=http://127.0.0.1:$port AWS_ACCESS_KEY_ID=$access_key AWS_SECRET_ACCESS_KEY=$secret_key" ;;
  *) echo "usage: $0 start|stop|purge|env" >&2; exit 64 ;;
esac
